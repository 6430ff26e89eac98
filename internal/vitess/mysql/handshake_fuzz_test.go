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

// FuzzParseComChangeUser: whatever a client sends as COM_CHANGE_USER,
// parsing it returns an error or a request, never a panic (seqd:
// changeuser.go).
func FuzzParseComChangeUser(f *testing.F) {
	f.Add(uint32(changeUserFlags), []byte("\x11app\x00\x03abcd\x00\x2d\x00caching_sha2_password\x00\x08\x03k_1\x03v_1"))
	f.Add(uint32(CapabilityClientProtocol41), []byte("\x11app\x00pw\x00d\x00"))
	f.Add(uint32(changeUserFlags), []byte("\x11app\x00\x30ab"))
	f.Add(uint32(changeUserFlags), []byte("\x11app\x00\x00\x00\x21\x00\x00\xfe\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, flags uint32, data []byte) {
		parseComChangeUser(flags, data)
	})
}
