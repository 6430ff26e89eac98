// Package noop is the benchmarks' ceiling: a PostgreSQL-protocol server
// that answers every statement with one int8 row from an atomic counter,
// without parsing SQL or touching an engine. What seqd loses against it is
// the cost of being a sequence service rather than a protocol loop.
package noop

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Server answers on every connection Serve accepts.
type Server struct {
	counter atomic.Int64
}

// Serve accepts connections on ln until it fails.
func (s *Server) Serve(ln net.Listener) error {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return err
		}
		go s.serve(nc)
	}
}

var rowDesc = &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("nextval"), DataTypeOID: 20, DataTypeSize: 8, TypeModifier: -1}}}

func (s *Server) serve(nc net.Conn) {
	defer nc.Close()
	be := pgproto3.NewBackend(nc, nc)
	for {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return
		}
		if _, ok := msg.(*pgproto3.StartupMessage); ok {
			break
		}
		if _, ok := msg.(*pgproto3.SSLRequest); !ok {
			return
		}
		if _, err := nc.Write([]byte{'N'}); err != nil {
			return
		}
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.ParameterStatus{Name: "server_version", Value: "15.0 (noop)"})
	be.Send(&pgproto3.ParameterStatus{Name: "client_encoding", Value: "UTF8"})
	be.Send(&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: "on"})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 0}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	binaryResult := false
	var buf []byte
	row := func() {
		v := s.counter.Add(1)
		if binaryResult {
			buf = binary.BigEndian.AppendUint64(buf[:0], uint64(v))
		} else {
			buf = strconv.AppendInt(buf[:0], v, 10)
		}
		be.Send(&pgproto3.DataRow{Values: [][]byte{buf}})
		be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
	}
	for {
		msg, err := be.Receive()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "08P01", Message: err.Error()})
				be.Flush()
			}
			return
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			binaryResult = false
			be.Send(rowDesc)
			row()
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		case *pgproto3.Parse:
			be.Send(&pgproto3.ParseComplete{})
		case *pgproto3.Bind:
			binaryResult = len(m.ResultFormatCodes) > 0 && m.ResultFormatCodes[0] == 1
			be.Send(&pgproto3.BindComplete{})
		case *pgproto3.Describe:
			if m.ObjectType == 'S' {
				be.Send(&pgproto3.ParameterDescription{})
			}
			be.Send(rowDesc)
		case *pgproto3.Execute:
			row()
		case *pgproto3.Close:
			be.Send(&pgproto3.CloseComplete{})
		case *pgproto3.Sync:
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		case *pgproto3.Flush:
		case *pgproto3.Terminate:
			return
		}
		switch msg.(type) {
		case *pgproto3.Query, *pgproto3.Sync, *pgproto3.Flush:
			if be.Flush() != nil {
				return
			}
		}
	}
}
