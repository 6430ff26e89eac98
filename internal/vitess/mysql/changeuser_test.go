/*
Copyright 2019 The Vitess Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package mysql

import (
	"reflect"
	"testing"
)

// changeUserFlags are the capabilities of a client of today: the auth
// response after a length byte, the plugin's name, attributes.
const changeUserFlags = CapabilityClientProtocol41 | CapabilityClientSecureConnection | CapabilityClientPluginAuth | CapabilityClientConnAttr

// TestParseComChangeUser: COM_CHANGE_USER's packet read as MariaDB
// documents it (seqd: changeuser.go), the fields after the database
// optional, and one that cannot be read an error.
func TestParseComChangeUser(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags uint32
		data  string
		want  changeUserRequest
		bad   bool
	}{
		{"whole", changeUserFlags, "\x11app\x00\x03abcd\x00\x2d\x00caching_sha2_password\x00\x08\x03k_1\x03v_1",
			changeUserRequest{user: "app", authResponse: []byte("abc"), db: "d", charset: 45, authMethod: CachingSha2Password}, false},
		{"no database, no more", changeUserFlags, "\x11app\x00\x00\x00",
			changeUserRequest{user: "app", authResponse: []byte{}, authMethod: MysqlNativePassword}, false},
		{"empty plugin name", changeUserFlags, "\x11app\x00\x00\x00\x21\x00\x00",
			changeUserRequest{user: "app", authResponse: []byte{}, charset: 33, authMethod: MysqlNativePassword}, false},
		{"NUL-terminated auth response", CapabilityClientProtocol41, "\x11app\x00pw\x00d\x00",
			changeUserRequest{user: "app", authResponse: []byte("pw"), db: "d", authMethod: MysqlNativePassword}, false},
		{"without plugin auth the name is not read", CapabilityClientProtocol41 | CapabilityClientSecureConnection, "\x11app\x00\x00\x00\x21\x00dialog\x00",
			changeUserRequest{user: "app", authResponse: []byte{}, charset: 33, authMethod: MysqlNativePassword}, false},
		{"only the command", changeUserFlags, "\x11", changeUserRequest{}, true},
		{"user without NUL", changeUserFlags, "\x11app", changeUserRequest{}, true},
		{"cut after the user", changeUserFlags, "\x11app\x00", changeUserRequest{}, true},
		{"length past the end", changeUserFlags, "\x11app\x00\x30ab", changeUserRequest{}, true},
		{"NUL-terminated response without NUL", CapabilityClientProtocol41, "\x11app\x00pw", changeUserRequest{}, true},
		{"database without NUL", changeUserFlags, "\x11app\x00\x00d", changeUserRequest{}, true},
		{"half a character set", changeUserFlags, "\x11app\x00\x00\x00\x21", changeUserRequest{}, true},
		{"plugin name without NUL", changeUserFlags, "\x11app\x00\x00\x00\x21\x00mysql", changeUserRequest{}, true},
		{"attributes past the end", changeUserFlags, "\x11app\x00\x00\x00\x21\x00\x00\x08\x03k", changeUserRequest{}, true},
		{"attributes' length past int's", changeUserFlags, "\x11app\x00\x00\x00\x21\x00\x00\xfe\xff\xff\xff\xff\xff\xff\xff\xff", changeUserRequest{}, true},
	} {
		got, err := parseComChangeUser(tc.flags, []byte(tc.data))
		if (err != nil) != tc.bad {
			t.Errorf("%s: error %v, want one: %v", tc.name, err, tc.bad)
			continue
		}
		if !tc.bad && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
