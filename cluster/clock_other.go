//go:build !linux

package cluster

func newSystemClock() Clock { return newWallClock() }
