package mysqlwire

import (
	"crypto/tls"
	"errors"
	"log"
	"net"
	"sync/atomic"
	"time"

	"github.com/dolthub/vitess/go/netutil"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/frontend"
)

// accepting is the listener the protocol library accepts from:
// frontend's, so that MySQL's connections have the defences every front
// end shares (counted in the budget from accept, the oldest
// unauthenticated one evicted when the budget is full, closed when not
// authenticated within AuthTimeout, accept failures retried: its Accept
// fails only once closed). One the budget has no room for gets MySQL's
// 1040 in place of the handshake (tooMany); so does one that reaches a
// cluster's standby its errStandby. Each connection is admitted: bounded
// in what it sends at once.
type accepting struct {
	*frontend.Listener
	srv *Server
}

// listen wraps ln for s.
func (s *Server) listen(ln net.Listener) accepting {
	fl := frontend.Listen(ln, frontend.ListenerConfig{Registry: s.cfg.Registry, AuthTimeout: s.cfg.AuthTimeout,
		Name: "mysql", Logger: s.log, Refuse: func(nc net.Conn) { writeRefusal(nc, tooMany) }})
	return accepting{Listener: fl, srv: s}
}

// tooMany is MySQL's refusal of a connection over the budget.
var tooMany = mysql.NewSQLError(mysql.ERConCount, "08004", "Too many connections")

func (a accepting) Accept() (net.Conn, error) {
	for {
		nc, err := a.Listener.Accept()
		if err != nil {
			return nil, err
		}
		fc := nc.(*frontend.Conn)
		if a.srv.standby() {
			go func() {
				fc.SetDeadline(time.Now().Add(time.Second))
				writeRefusal(fc, errStandby)
				fc.Close()
			}()
			continue
		}
		// Slack for a packet's header and the reader's read-ahead (and
		// TLS's records), and for the one packet past MaxMessage the
		// library reads and drops (at most mysql.MaxPacketSize) so that
		// its client is told mysql.ErrPacketTooLarge.
		ad := &admitted{Conn: fc, fc: fc, max: int64(a.srv.cfg.MaxMessage) + mysql.MaxPacketSize + 64<<10, log: a.srv.log}
		if a.srv.cfg.IdleTimeout <= 0 {
			ad.wait = roomWriteWait
		}
		return ad, nil
	}
}

// writeRefusal sends err in place of the handshake (an error packet,
// sequence number 0).
func writeRefusal(c net.Conn, err *mysql.SQLError) {
	code := uint16(err.Number())
	p := []byte{0, 0, 0, 0, 0xff, byte(code), byte(code >> 8), '#'}
	p = append(append(p, err.SQLState()...), err.Message...)
	p[0], p[1], p[2] = byte(len(p)-4), byte((len(p)-4)>>8), byte((len(p)-4)>>16)
	c.Write(p)
}

// admitted is an admitted connection (closing it leaves the budget,
// once: frontend.Conn). It bounds what the client sends between two of
// the server's writes (MySQL's protocol is a request and its answer: a
// command is read whole before anything is written back; only long data
// has no answer), which the library would otherwise gather without end,
// continuation packet after continuation packet.
type admitted struct {
	net.Conn
	fc   *frontend.Conn
	max  int64
	log  *log.Logger
	read atomic.Int64 // bytes read since the last write
	// holding: its statement holds room long statements share
	// (frontend.TakeParseRoom), so that each write must be taken within
	// roomWriteWait, where no -idle-timeout bounds writes (wait 0).
	holding atomic.Bool
	wait    time.Duration
}

// roomWriteWait bounds a write a client does not take while its query
// holds room long statements share: past it the connection ends, and
// the room is given back, as MariaDB's does past net_write_timeout. A
// query of several statements sends the results of all but its last
// with the room held. Tests shorten it.
var roomWriteWait = frontend.ParseRoomWait

// errTooLarge ends a connection that sent more than MaxMessage at once.
var errTooLarge = errors.New("seqd: a MySQL client sent more than max_allowed_packet at once")

func (a *admitted) Read(p []byte) (int, error) {
	n, err := a.Conn.Read(p)
	if a.read.Add(int64(n)) > a.max {
		a.log.Printf("mysql: connection from %s ended: more than %d bytes at once (max_allowed_packet)", a.RemoteAddr(), a.max)
		return n, errTooLarge
	}
	return n, err
}

func (a *admitted) Write(p []byte) (int, error) {
	a.read.Store(0)
	if a.wait > 0 && a.holding.Load() {
		a.Conn.SetWriteDeadline(time.Now().Add(a.wait))
		n, err := a.Conn.Write(p)
		a.Conn.SetWriteDeadline(time.Time{})
		return n, err
	}
	return a.Conn.Write(p)
}

// admittedOf is the admitted connection under nc, the connection the
// library serves: ours, wrapped in the library's timeouts (IdleTimeout)
// and, once the client asked for it, in TLS.
func admittedOf(nc net.Conn) *admitted {
	for {
		switch c := nc.(type) {
		case *admitted:
			return c
		case *tls.Conn:
			nc = c.NetConn()
		case netutil.ConnWithTimeouts:
			nc = c.Conn
		default:
			return nil
		}
	}
}
