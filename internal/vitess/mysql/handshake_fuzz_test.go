package mysql

import (
	"encoding/binary"
	"testing"
)

// FuzzParseClientHandshakePacket: whatever a client sends as its
// handshake response, parsing it returns an error or a user, never a
// panic (seqd: bounds in encoding.go; upstream panicked on a response
// shorter than its fixed part and on a length past int's).
func FuzzParseClientHandshakePacket(f *testing.F) {
	ok := binary.LittleEndian.AppendUint32(nil, CapabilityClientProtocol41|CapabilityClientSecureConnection|
		CapabilityClientPluginAuth|CapabilityClientPluginAuthLenencClientData|CapabilityClientConnectWithDB|CapabilityClientConnAttr)
	ok = append(ok, 0, 0, 0, 1, 45)
	ok = append(ok, make([]byte, 23)...)
	ok = append(ok, "app\x00\x03abcdb\x00mysql_native_password\x00\x04\x01k\x01v"...)
	f.Add(ok)
	f.Add([]byte{0, 2, 0, 0, 0, 0, 0, 1, 45, 0})
	f.Add(append(append([]byte{}, ok[:36]...), 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	l := &Listener{}
	f.Fuzz(func(t *testing.T, data []byte) {
		l.parseClientHandshakePacket(&Conn{}, true, data)
	})
}
