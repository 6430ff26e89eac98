package pgwire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
)

// receiver reads a client's messages: the framing of pgproto3.Backend's
// ReceiveStartupMessage and Receive, with their bounds and errors, and
// pgproto3's messages. The messages of the prepared path, Bind and
// Execute, are decoded into ones it keeps, their slices reused and
// their names kept while a client repeats them, so that a prepared
// statement allocates nothing to be read (pgproto3 allocates their
// slices and names afresh at every message). As Backend's, a message
// and what it holds are valid until the next call.
type receiver struct {
	br      *bufio.Reader
	big     []byte // the body of a message past br's buffer
	maxBody int    // a message's largest body; 0: no bound
	// authType is what a password message ('p') answers:
	// pgproto3.AuthTypeSASL or AuthTypeSASLContinue.
	authType uint32

	startup   pgproto3.StartupMessage
	ssl       pgproto3.SSLRequest
	cancel    pgproto3.CancelRequest
	gssEnc    pgproto3.GSSEncRequest
	bind      pgproto3.Bind
	execute   pgproto3.Execute
	close     pgproto3.Close
	describe  pgproto3.Describe
	parse     pgproto3.Parse
	query     pgproto3.Query
	sync      pgproto3.Sync
	flush     pgproto3.Flush
	terminate pgproto3.Terminate
	function  pgproto3.FunctionCall
	copyData  pgproto3.CopyData
	copyDone  pgproto3.CopyDone
	copyFail  pgproto3.CopyFail

	// options are the protocol options (_pq_.*) of the StartupMessage,
	// in its order, not in its Parameters.
	options []string

	// names are the statement and portal names last read, kept while a
	// client names them again.
	stmtName, portalName string

	// src counts the reads made of the connection (reads).
	src *countingReader
}

// countingReader counts the reads made of r.
type countingReader struct {
	r     io.Reader
	reads uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

const (
	receiveBuffer = 8 << 10 // br's size, as pgproto3's reader's
	// maxKeptRead bounds the body buffer kept for the next message past
	// br's buffer: a connection that sent one large statement does not
	// hold its size for good (a larger one is read into a buffer of its
	// own, let go after it).
	maxKeptRead = 64 << 10
	// A startup packet's length bounds, as PostgreSQL's (and
	// pgproto3's): a version or code, up to MAX_STARTUP_PACKET_LENGTH.
	minStartupPacket, maxStartupPacket = 4, 10_000
	// maxKeptSlots bounds the Bind slices kept for the next Bind: a
	// message with more parameters or formats has its own.
	maxKeptSlots = 1024
	// maxKeptName bounds the statement and portal names kept for the
	// next message: drivers' are short (pgx's stmtcache_ and 40 hex
	// digits), and a longer one is not held past its message.
	maxKeptName = 256
)

// Startup packet codes (PostgreSQL's pqcomm.h).
const (
	sslRequestCode    = 80877103
	cancelRequestCode = 80877102
	gssEncRequestCode = 80877104
)

func newReceiver(r io.Reader, maxBody int) *receiver {
	src := &countingReader{r: r}
	return &receiver{br: bufio.NewReaderSize(src, receiveBuffer), maxBody: maxBody, src: src}
}

// reads is how many reads of the connection the receiver has made: while
// it stays the same, every message since was already buffered, and no
// time went waiting for the client.
func (r *receiver) reads() uint64 { return r.src.reads }

// buffered reports whether the client sent more than was read: after an
// SSLRequest, bytes it sent in the clear before the TLS handshake.
func (r *receiver) buffered() bool { return r.br.Buffered() > 0 }

// next reads the next n bytes, valid until the next read.
func (r *receiver) next(n int) ([]byte, error) {
	if n <= receiveBuffer {
		b, err := r.br.Peek(n)
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		r.br.Discard(n)
		return b, nil
	}
	if cap(r.big) < n {
		r.big = make([]byte, n)
	}
	b := r.big[:n]
	if _, err := io.ReadFull(r.br, b); err != nil {
		return nil, unexpectedEOF(err)
	}
	return b, nil
}

// unexpectedEOF is pgproto3's translation: a message cut short.
func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// receiveStartup reads a startup packet: a StartupMessage, an SSLRequest,
// a GSSEncRequest or a CancelRequest.
func (r *receiver) receiveStartup() (pgproto3.FrontendMessage, error) {
	r.release()
	head, err := r.next(4)
	if err != nil {
		return nil, err
	}
	size := int(int32(binary.BigEndian.Uint32(head))) - 4
	if size < minStartupPacket || size > maxStartupPacket {
		return nil, fmt.Errorf("invalid length of startup packet: %d", size)
	}
	body, err := r.next(size)
	if err != nil {
		return nil, err
	}
	var msg pgproto3.FrontendMessage
	switch code := binary.BigEndian.Uint32(body); code {
	case sslRequestCode:
		msg = &r.ssl
	case cancelRequestCode:
		msg = &r.cancel
	case gssEncRequestCode:
		msg = &r.gssEnc
	default:
		if code>>16 != 3 {
			return nil, unsupportedProtocolError(code)
		}
		// Any 3.x: the connection speaks 3.0 and says so (accept).
		return &r.startup, r.decodeStartup(body)
	}
	if err := msg.Decode(body); err != nil {
		return nil, err
	}
	return msg, nil
}

// unsupportedProtocolError is a startup packet's protocol version that
// is not 3.x, in PostgreSQL's words.
type unsupportedProtocolError uint32

func (e unsupportedProtocolError) Error() string {
	return fmt.Sprintf("unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", e>>16, e&0xffff)
}

// errStartupLayout: a StartupMessage whose parameters do not end in its
// last byte, a NUL.
var errStartupLayout = errors.New("invalid startup packet layout: expected terminator as last byte")

// decodeStartup decodes a StartupMessage into r.startup as PostgreSQL's
// ProcessStartupPacket reads it: after the version, names and values,
// each ended by a NUL, up to an empty name, the packet's last byte;
// protocol options (_pq_.*) go to r.options.
// (pgproto3's refuses a packet of no parameters, and minor versions but
// its own.)
func (r *receiver) decodeStartup(body []byte) error {
	m := &r.startup
	m.ProtocolVersion, m.Parameters = binary.BigEndian.Uint32(body), map[string]string{}
	r.options = nil
	src := body[4:]
	for {
		name, rest, ok := cstring(src)
		if !ok {
			return errStartupLayout
		}
		src = rest
		if len(name) == 0 {
			break
		}
		value, rest, ok := cstring(src)
		if !ok {
			return errStartupLayout
		}
		if bytes.HasPrefix(name, []byte("_pq_.")) {
			r.options = append(r.options, string(name))
		} else {
			m.Parameters[string(name)] = string(value)
		}
		src = rest
	}
	if len(src) != 0 {
		return errStartupLayout
	}
	return nil
}

// receive reads a message after the startup packet.
func (r *receiver) receive() (pgproto3.FrontendMessage, error) {
	r.release()
	head, err := r.next(5)
	if err != nil {
		return nil, err
	}
	typ, length := head[0], int(int32(binary.BigEndian.Uint32(head[1:])))
	if length < 4 {
		return nil, fmt.Errorf("invalid message length: %d", length)
	}
	size := length - 4
	if r.maxBody > 0 && size > r.maxBody {
		return nil, &pgproto3.ExceededMaxBodyLenErr{MaxExpectedBodyLen: r.maxBody, ActualBodyLen: size}
	}
	var msg pgproto3.FrontendMessage
	switch typ {
	case 'B':
		msg = &r.bind
	case 'E':
		msg = &r.execute
	case 'S':
		msg = &r.sync
	case 'P':
		msg = &r.parse
	case 'D':
		msg = &r.describe
	case 'C':
		msg = &r.close
	case 'Q':
		msg = &r.query
	case 'H':
		msg = &r.flush
	case 'X':
		msg = &r.terminate
	case 'F':
		msg = &r.function
	case 'd':
		msg = &r.copyData
	case 'c':
		msg = &r.copyDone
	case 'f':
		msg = &r.copyFail
	case 'p':
		if r.authType == pgproto3.AuthTypeSASL {
			msg = &pgproto3.SASLInitialResponse{}
		} else {
			msg = &pgproto3.SASLResponse{}
		}
	default:
		return nil, fmt.Errorf("unknown message type: %c", typ)
	}
	body, err := r.next(size)
	if err != nil {
		return nil, err
	}
	switch typ {
	case 'B':
		err = r.decodeBind(body)
	case 'E':
		err = r.decodeExecute(body)
	default:
		err = msg.Decode(body)
	}
	if err != nil {
		return nil, err
	}
	return msg, nil
}

// release lets go, before the next message, of what the last one held:
// a large body buffer, and what its message kept of its body (a Bind's
// values, which point into the buffer, a Query's or Parse's text, the
// name of a Close or Describe, a name past maxKeptName), so that an
// idle connection keeps its read buffer, at most maxKeptRead of body
// and maxKeptSlots of Bind slices, whatever it sent last.
func (r *receiver) release() {
	if cap(r.big) > maxKeptRead {
		r.big = nil
	}
	b := &r.bind
	// Each Bind's values are cleared here, so those past the next
	// one's count, in the slice it reuses, are cleared too.
	clear(b.Parameters)
	if cap(b.Parameters) > maxKeptSlots {
		b.Parameters = nil
	}
	if cap(b.ParameterFormatCodes) > maxKeptSlots {
		b.ParameterFormatCodes = nil
	}
	b.ResultFormatCodes, b.DestinationPortal, b.PreparedStatement = nil, "", ""
	r.execute.Portal = ""
	r.query.String = ""
	r.parse = pgproto3.Parse{}
	r.close.Name, r.describe.Name = "", ""
	r.copyData.Data, r.copyFail.Message = nil, ""
	r.function = pgproto3.FunctionCall{}
	if len(r.stmtName) > maxKeptName {
		r.stmtName = ""
	}
	if len(r.portalName) > maxKeptName {
		r.portalName = ""
	}
}

// A message whose body does not hold what its type says (pgproto3's
// words for it).
var (
	errBadBind    = errors.New("Bind body is invalid")
	errBadExecute = errors.New("Execute body is invalid")
)

// name returns b as a string, *last when it names the same (no
// allocation), else a new string kept in *last.
func name(b []byte, last *string) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// cstring splits src at its first NUL.
func cstring(src []byte) (s, rest []byte, ok bool) {
	i := bytes.IndexByte(src, 0)
	if i < 0 {
		return nil, nil, false
	}
	return src[:i], src[i+1:], true
}

// The result formats of nearly every Bind: none, all text, all binary.
// Shared, and never written: a portal keeps its formats.
var textResults, binaryResults = []int16{0}, []int16{1}

// decodeBind decodes a Bind into r.bind as pgproto3's Bind.Decode does,
// reusing its parameter slices.
func (r *receiver) decodeBind(src []byte) error {
	m, bad := &r.bind, errBadBind
	portal, src, ok := cstring(src)
	if !ok {
		return bad
	}
	stmt, src, ok := cstring(src)
	if !ok {
		return bad
	}
	m.DestinationPortal, m.PreparedStatement = name(portal, &r.portalName), name(stmt, &r.stmtName)
	if m.ParameterFormatCodes, src, ok = formatCodes(m.ParameterFormatCodes[:0], src); !ok {
		return bad
	}
	if len(src) < 2 {
		return bad
	}
	n := int(binary.BigEndian.Uint16(src))
	src = src[2:]
	if len(src) < 4*n { // each parameter's length at least
		return bad
	}
	params := m.Parameters[:0]
	if cap(params) < n || cap(params) > maxKeptSlots {
		params = make([][]byte, 0, n)
	}
	for range n {
		if len(src) < 4 {
			return bad
		}
		size := int(int32(binary.BigEndian.Uint32(src)))
		src = src[4:]
		if size == -1 {
			params = append(params, nil)
			continue
		}
		if size < 0 || len(src) < size {
			return bad
		}
		params = append(params, src[:size:size])
		src = src[size:]
	}
	m.Parameters = params
	// The result formats: a portal keeps them past this message, so
	// they are not reused, and the usual ones are shared.
	var results []int16
	switch {
	case len(src) >= 4 && binary.BigEndian.Uint16(src) == 1 && binary.BigEndian.Uint16(src[2:]) == 0:
		results = textResults
	case len(src) >= 4 && binary.BigEndian.Uint16(src) == 1 && binary.BigEndian.Uint16(src[2:]) == 1:
		results = binaryResults
	default:
		if results, _, ok = formatCodes(nil, src); !ok {
			return bad
		}
	}
	m.ResultFormatCodes = results
	return nil
}

// formatCodes reads a Bind's count of format codes and the codes from
// src into dst (reused if it can hold them, and not too large to keep);
// nil for none.
func formatCodes(dst []int16, src []byte) (codes []int16, rest []byte, ok bool) {
	if len(src) < 2 {
		return nil, nil, false
	}
	n := int(binary.BigEndian.Uint16(src))
	src = src[2:]
	if len(src) < 2*n {
		return nil, nil, false
	}
	if n == 0 {
		return nil, src, true
	}
	if cap(dst) < n || cap(dst) > maxKeptSlots {
		dst = make([]int16, 0, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = int16(binary.BigEndian.Uint16(src[2*i:]))
	}
	return dst, src[2*n:], true
}

// decodeExecute decodes an Execute into r.execute.
func (r *receiver) decodeExecute(src []byte) error {
	portal, src, ok := cstring(src)
	if !ok || len(src) < 4 {
		return errBadExecute
	}
	r.execute.Portal = name(portal, &r.portalName)
	r.execute.MaxRows = binary.BigEndian.Uint32(src)
	return nil
}
