//go:build !faultinject

package main

import "github.com/seqd/seqd/server"

// Without the faultinject build tag there is no fault injection
// (faults.go): the production binary always stores on disk.

type faultConfig struct{}

func faultFlags() faultConfig { return faultConfig{} }

func (faultConfig) start(*server.Config) func() error { return nil }
