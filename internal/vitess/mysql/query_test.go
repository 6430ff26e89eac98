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
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Utility function to write sql query as packets to test parseComPrepare
func MockQueryPackets(t *testing.T, query string) []byte {
	data := make([]byte, len(query)+1)
	// Not sure if it makes a difference
	pos := 0
	pos = writeByte(data, pos, ComPrepare)
	copy(data[pos:], query)
	return data
}

func MockPrepareData(t *testing.T) (*PrepareData, *sqltypes.Result) {
	sql := "select * from test_table where id = ?"

	result := &sqltypes.Result{
		Fields: []*querypb.Field{
			{
				Name: "id",
				Type: querypb.Type_INT32,
			},
		},
		Rows: [][]sqltypes.Value{
			{
				sqltypes.MakeTrusted(querypb.Type_INT32, []byte("1")),
			},
		},
		RowsAffected: 1,
	}

	prepare := &PrepareData{
		StatementID: 18,
		PrepareStmt: sql,
		ParamsCount: 1,
		ParamsType:  []int32{263},
		ColumnNames: []string{"id"},
		BindVars: map[string]*querypb.BindVariable{
			"v1": sqltypes.Int32BindVariable(10),
		},
	}

	return prepare, result
}

func TestComInitDB(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	// Write ComInitDB packet, read it, compare.
	if err := cConn.writeComInitDB("my_db"); err != nil {
		t.Fatalf("writeComInitDB failed: %v", err)
	}
	data, err := sConn.ReadPacket(context.Background())
	if err != nil || len(data) == 0 || data[0] != ComInitDB {
		t.Fatalf("sConn.ReadPacket - ComInitDB failed: %v %v", data, err)
	}
	db := sConn.parseComInitDB(data)
	if db != "my_db" {
		t.Errorf("parseComInitDB returned unexpected data: %v", db)
	}
}

func TestComSetOption(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	// Write ComSetOption packet, read it, compare.
	if err := cConn.writeComSetOption(1); err != nil {
		t.Fatalf("writeComSetOption failed: %v", err)
	}
	data, err := sConn.ReadPacket(context.Background())
	if err != nil || len(data) == 0 || data[0] != ComSetOption {
		t.Fatalf("sConn.ReadPacket - ComSetOption failed: %v %v", data, err)
	}
	operation, ok := sConn.parseComSetOption(data)
	if !ok {
		t.Fatalf("parseComSetOption failed unexpectedly")
	}
	if operation != 1 {
		t.Errorf("parseComSetOption returned unexpected data: %v", operation)
	}
}

func TestComStmtPrepare(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	sql := "select * from test_table where id = ?"
	mockData := MockQueryPackets(t, sql)

	if err := cConn.writePacket(mockData); err != nil {
		t.Fatalf("writePacket failed: %v", err)
	}

	data, err := sConn.ReadPacket(context.Background())
	if err != nil {
		t.Fatalf("sConn.ReadPacket - ComPrepare failed: %v", err)
	}

	parsedQuery := sConn.parseComPrepare(data)
	if parsedQuery != sql {
		t.Fatalf("Received incorrect query, want: %v, got: %v", sql, parsedQuery)
	}

	prepare, result := MockPrepareData(t)
	sConn.PrepareData = make(map[uint32]*PrepareData)
	sConn.PrepareData[prepare.StatementID] = prepare

	// write the response to the client
	if err := sConn.writePrepare(context.Background(), result.Fields, prepare); err != nil {
		t.Fatalf("sConn.writePrepare failed: %v", err)
	}

	resp, err := cConn.ReadPacket(context.Background())
	if err != nil {
		t.Fatalf("cConn.ReadPacket failed: %v", err)
	}
	if uint32(resp[1]) != prepare.StatementID {
		t.Fatalf("Received incorrect Statement ID, want: %v, got: %v", prepare.StatementID, resp[1])
	}
}

func TestComStmtSendLongData(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	prepare, result := MockPrepareData(t)
	cConn.PrepareData = make(map[uint32]*PrepareData)
	cConn.PrepareData[prepare.StatementID] = prepare
	if err := cConn.writePrepare(context.Background(), result.Fields, prepare); err != nil {
		t.Fatalf("writePrepare failed: %v", err)
	}

	// Since there's no writeComStmtSendLongData, we'll write a prepareStmt and check if we can read the StatementID
	data, err := sConn.ReadPacket(context.Background())
	if err != nil || len(data) == 0 {
		t.Fatalf("sConn.ReadPacket - ComStmtClose failed: %v %v", data, err)
	}
	stmtID, paramID, chunkData, ok := sConn.parseComStmtSendLongData(data)
	if !ok {
		t.Fatalf("parseComStmtSendLongData failed")
	}
	if paramID != 1 {
		t.Fatalf("Received incorrect ParamID, want %v, got %v:", paramID, 1)
	}
	if stmtID != prepare.StatementID {
		t.Fatalf("Received incorrect value, want: %v, got: %v", uint32(data[1]), prepare.StatementID)
	}
	// Check length of chunkData, Since its a subset of `data` and compare with it after we subtract the number of bytes that was read from it.
	// sizeof(uint32) + sizeof(uint16) + 1 = 7
	if len(chunkData) != len(data)-7 {
		t.Fatalf("Received bad chunkData")
	}
}

func TestComStmtExecute(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	prepare, _ := MockPrepareData(t)
	cConn.PrepareData = make(map[uint32]*PrepareData)
	cConn.PrepareData[prepare.StatementID] = prepare

	// This is simulated packets for `select * from test_table where id = ?`
	data := []byte{23, 18, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 128, 1}

	stmtID, _, err := sConn.parseComStmtExecute(cConn.PrepareData, data)
	if err != nil {
		t.Fatalf("parseComStmtExeute failed: %v", err)
	}
	if stmtID != 18 {
		t.Fatalf("Parsed incorrect values")
	}
}

func TestComStmtExecuteNewParams(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	expectedParamTypes := []querypb.Type{
		querypb.Type_DECIMAL,
		querypb.Type_INT8,
		querypb.Type_INT16,
		querypb.Type_INT32,
		querypb.Type_FLOAT32,
		querypb.Type_FLOAT64,
		querypb.Type_TIMESTAMP,
		querypb.Type_INT64,
		querypb.Type_INT24,
		querypb.Type_DATE,
		querypb.Type_TIME,
		querypb.Type_DATETIME,
		querypb.Type_YEAR,
		querypb.Type_VARCHAR,
		querypb.Type_BIT,
		querypb.Type_TIMESTAMP,
		querypb.Type_DATETIME,
		querypb.Type_TIME,
		querypb.Type_JSON,
		querypb.Type_DECIMAL,
		querypb.Type_ENUM,
		querypb.Type_SET,
		querypb.Type_TEXT,
		querypb.Type_TEXT,
		querypb.Type_TEXT,
		querypb.Type_TEXT,
		querypb.Type_VARCHAR,
		querypb.Type_CHAR,
		querypb.Type_GEOMETRY,

		querypb.Type_DECIMAL,
		querypb.Type_UINT8,
		querypb.Type_UINT16,
		querypb.Type_UINT32,
		querypb.Type_FLOAT32,
		querypb.Type_FLOAT64,
		querypb.Type_TIMESTAMP,
		querypb.Type_UINT64,
		querypb.Type_UINT24,
		querypb.Type_DATE,
		querypb.Type_TIME,
		querypb.Type_DATETIME,
		querypb.Type_YEAR,
		querypb.Type_VARCHAR,
		querypb.Type_BIT,
		querypb.Type_TIMESTAMP,
		querypb.Type_DATETIME,
		querypb.Type_TIME,
		querypb.Type_JSON,
		querypb.Type_DECIMAL,
		querypb.Type_ENUM,
		querypb.Type_SET,
		querypb.Type_TEXT,
		querypb.Type_TEXT,
		querypb.Type_TEXT,
		querypb.Type_TEXT,
		querypb.Type_VARCHAR,
		querypb.Type_CHAR,
		querypb.Type_GEOMETRY,
	}

	// In addition to testing the expected types, expected values can also be
	// optionally specified. The values below are for cases where we weren't correctly
	// handling the signed bit for integers.
	expectedParamValues := make([]any, len(expectedParamTypes))
	expectedParamValues[1] = -73
	expectedParamValues[2] = -18622
	expectedParamValues[3] = -1219805925
	expectedParamValues[8] = -1173890549

	paramsCount := uint16(58)
	prepare := &PrepareData{
		StatementID: 123,
		ParamsCount: paramsCount, // TODO: figure out total number of param types
		ParamsType:  make([]int32, paramsCount),
		BindVars:    make(map[string]*querypb.BindVariable),
	}
	cConn.PrepareData = make(map[uint32]*PrepareData)
	cConn.PrepareData[prepare.StatementID] = prepare

	data := []byte{
		23,           // status
		123, 0, 0, 0, // statement_id
		1,          // flags
		1, 0, 0, 0, // iteration_count
		0, 0, 0, 0, 0, 0, 0, 0, // null_bitmap
		1, // new_params_bind_flag

		0, 0, // parameter[0] DECIMAL, SIGNED
		1, 0, // parameter[1] INT8, SIGNED
		2, 0, // parameter[2] INT16, SIGNED
		3, 0, // parameter[3] INT32, SIGNED
		4, 0, // parameter[4] FLOAT32, SIGNED
		5, 0, // parameter[5] FLOAT64, SIGNED
		7, 0, // parameter[6] TIMESTAMP, SIGNED
		8, 0, // parameter[7] INT64, SIGNED
		9, 0, // parameter[8] INT24, SIGNED
		10, 0, // parameter[9] DATE, SIGNED
		11, 0, // parameter[10] TIME, SIGNED
		12, 0, // parameter[11] DATETIME, SIGNED
		13, 0, // parameter[12] YEAR, SIGNED
		15, 0, // parameter[13] VARCHAR, SIGNED
		16, 0, // parameter[14] BIT, SIGNED
		17, 0, // parameter[15] TIMESTAMP2, SIGNED
		18, 0, // parameter[16] DATETIME2, SIGNED
		19, 0, // parameter[17] TIME2, SIGNED
		245, 0, // parameter[18] JSON, SIGNED
		246, 0, // parameter[19] DECIMAL, SIGNED
		247, 0, // parameter[20] ENUM, SIGNED
		248, 0, // parameter[21] SET, SIGNED
		249, 0, // parameter[22] TINY_BLOB, SIGNED
		250, 0, // parameter[23] MEDIUM_BLOB, SIGNED
		251, 0, // parameter[24] LONG_BLOB, SIGNED
		252, 0, // parameter[25] BLOB, SIGNED
		253, 0, // parameter[26] VAR_CHAR, SIGNED
		254, 0, // parameter[27] CHAR, SIGNED
		255, 0, // parameter[28] GEOMETRY, SIGNED

		0, 128, // parameter[29] DECIMAL, UNSIGNED
		1, 128, // parameter[30] INT8, UNSIGNED
		2, 128, // parameter[31] INT16, UNSIGNED
		3, 128, // parameter[32] INT32, UNSIGNED
		4, 128, // parameter[33] FLOAT32, UNSIGNED
		5, 128, // parameter[34] FLOAT64, UNSIGNED
		7, 128, // parameter[35] TIMESTAMP, UNSIGNED
		8, 128, // parameter[36] INT64, UNSIGNED
		9, 128, // parameter[37] INT24, UNSIGNED
		10, 128, // parameter[38] DATE, UNSIGNED
		11, 128, // parameter[39] TIME, UNSIGNED
		12, 128, // parameter[40] DATETIME, UNSIGNED
		13, 128, // parameter[41] YEAR, UNSIGNED
		15, 128, // parameter[42] VARCHAR, UNSIGNED
		16, 128, // parameter[43] BIT, UNSIGNED
		17, 128, // parameter[44] TIMESTAMP2, UNSIGNED
		18, 128, // parameter[45] DATETIME2, UNSIGNED
		19, 128, // parameter[46] TIME2, UNSIGNED
		245, 128, // parameter[47] JSON, UNSIGNED
		246, 128, // parameter[48] DECIMAL, UNSIGNED
		247, 128, // parameter[49] ENUM, UNSIGNED
		248, 128, // parameter[50] SET, UNSIGNED
		249, 128, // parameter[51] TINY_BLOB, UNSIGNED
		250, 128, // parameter[52] MEDIUM_BLOB, UNSIGNED
		251, 128, // parameter[53] LONG_BLOB, UNSIGNED
		252, 128, // parameter[54] BLOB, UNSIGNED
		253, 128, // parameter[55] VAR_CHAR, UNSIGNED
		254, 128, // parameter[56] CHAR, UNSIGNED
		255, 128, // parameter[57] GEOMETRY, UNSIGNED

		0x03, 0x66, 0x6f, 0x6f, // parameter[0]  DECIMAL
		0xb7,       // parameter[1]  INT8  -73
		0x42, 0xb7, // parameter[2]  INT16  -18622
		0x1b, 0x3d, 0x4b, 0xb7, // parameter[3]  INT32  -1219805925
		0x00, 0x00, 0x00, 0x00, // parameter[4]  FLOAT32
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // parameter[5]  FLOAT64
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[6]  TIMESTAMP
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, // parameter[7]  INT64
		0x0b, 0xda, 0x07, 0xba, // parameter[8]  INT24  -1173890549
		0x04, 0xda, 0x07, 0x0a, 0x11, // parameter[9]  DATE
		0x00,                                                                   // parameter[10] TIME
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[11] DATETIME
		0x01, 0x00, // parameter[12] YEAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[13] VARCHAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[14] BIT
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[15] TIMESTAMP2
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[16] DATETIME2
		0x00,                   // parameter[17] TIME2
		0x03, 0x66, 0x6f, 0x6f, // parameter[18] JSON
		0x03, 0x66, 0x6f, 0x6f, // parameter[19] DECIMAL
		0x03, 0x66, 0x6f, 0x6f, // parameter[20] ENUM
		0x03, 0x66, 0x6f, 0x6f, // parameter[21] SET
		0x03, 0x66, 0x6f, 0x6f, // parameter[22] TINY_BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[23] MEDIUM_BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[24] LONG_BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[25] BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[26] VAR_CHAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[27] CHAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[28] GEOMETRY

		0x03, 0x66, 0x6f, 0x6f, // parameter[29] DECIMAL
		0x00,       // parameter[30] INT8
		0x00, 0x00, // parameter[31] INT16
		0x00, 0x00, 0x00, 0x00, // parameter[32] INT32
		0x00, 0x00, 0x00, 0x00, // parameter[33] FLOAT32
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // parameter[34] FLOAT64
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[35] TIMESTAMP
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, // parameter[36] INT64
		0x0b, 0xda, 0x07, 0x0a, // parameter[37] INT24
		0x04, 0xda, 0x07, 0x0a, 0x11, // parameter[38] DATE
		0x00,                                                                   // parameter[39] TIME
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[40] DATETIME
		0x01, 0x00, // parameter[41] YEAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[42] VARCHAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[43] BIT
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[44] TIMESTAMP2
		0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00, // parameter[45] DATETIME2
		0x00,                   // parameter[46] TIME2
		0x03, 0x66, 0x6f, 0x6f, // parameter[47] JSON
		0x03, 0x66, 0x6f, 0x6f, // parameter[48] DECIMAL
		0x03, 0x66, 0x6f, 0x6f, // parameter[49] ENUM
		0x03, 0x66, 0x6f, 0x6f, // parameter[50] SET
		0x03, 0x66, 0x6f, 0x6f, // parameter[51] TINY_BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[52] MEDIUM_BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[53] LONG_BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[54] BLOB
		0x03, 0x66, 0x6f, 0x6f, // parameter[55] VAR_CHAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[56] CHAR
		0x03, 0x66, 0x6f, 0x6f, // parameter[57] GEOMETRY
	}

	stmtID, _, err := sConn.parseComStmtExecute(cConn.PrepareData, data)
	if err != nil {
		t.Fatalf("parseComStmtExeute failed: %v", err)
	}
	if stmtID != 123 {
		t.Fatalf("Parsed incorrect values")
	}

	for i, pt := range expectedParamTypes {
		if cConn.PrepareData[123].ParamsType[i] != int32(pt) {
			t.Fatalf("Parsed incorrect type/flag for parameter")
		}
		if expectedParamValues[i] != nil {
			bindVar := cConn.PrepareData[123].BindVars[fmt.Sprintf("v%d", i+1)]
			expectedValue := fmt.Sprintf(`value:"%v"`, expectedParamValues[i])
			if !strings.Contains(bindVar.String(), expectedValue) { // seqd: testify is not a dependency of seqd's
				t.Errorf("parameter %d: %v, want it to contain %s", i, bindVar, expectedValue)
			}
		}
	}
}

func TestComStmtFetch(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	prepare, _ := MockPrepareData(t)
	cConn.PrepareData = make(map[uint32]*PrepareData)
	cConn.PrepareData[prepare.StatementID] = prepare

	// This is simulated packets for `select * from test_table where id = ?`
	data := []byte{23, 18, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 128, 1}

	stmtID, cursorType, err := sConn.parseComStmtExecute(cConn.PrepareData, data)
	if err != nil {
		t.Fatalf("parseComStmtExeute failed: %v", err)
	}
	if stmtID != 18 {
		t.Fatalf("Parsed incorrect values")
	}
	if cursorType != ReadOnly {
		t.Fatalf("Expected read-only cursor")
	}
}

func TestComStmtClose(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	prepare, result := MockPrepareData(t)
	cConn.PrepareData = make(map[uint32]*PrepareData)
	cConn.PrepareData[prepare.StatementID] = prepare
	if err := cConn.writePrepare(context.Background(), result.Fields, prepare); err != nil {
		t.Fatalf("writePrepare failed: %v", err)
	}

	// Since there's no writeComStmtClose, we'll write a prepareStmt and check if we can read the StatementID
	data, err := sConn.ReadPacket(context.Background())
	if err != nil || len(data) == 0 {
		t.Fatalf("sConn.ReadPacket - ComStmtClose failed: %v %v", data, err)
	}
	stmtID, ok := sConn.parseComStmtClose(data)
	if !ok {
		t.Fatalf("parseComStmtClose failed")
	}
	if stmtID != prepare.StatementID {
		t.Fatalf("Received incorrect value, want: %v, got: %v", uint32(data[1]), prepare.StatementID)
	}
}

func writeRawPacketToConn(c *Conn, packet []byte) error {
	c.sequence = 0
	data := c.startEphemeralPacket(len(packet))
	copy(data, packet)
	return c.writeEphemeralPacket()
}

func TestComStmtPrepareWithTrailingNewLine(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()

	sql := "select ?;\n"
	data := MockQueryPackets(t, sql)
	if err := cConn.writePacket(data); err != nil {
		t.Fatalf("writePacket failed: %v", err)
	}

	prepare, result := MockPrepareData(t)
	sConn.PrepareData = make(map[uint32]*PrepareData)
	sConn.PrepareData[prepare.StatementID] = prepare

	sConn.Capabilities |= CapabilityClientMultiStatements
	handler := &testHandler{
		result: result,
	}
	err := sConn.handleNextCommand(context.Background(), handler)
	if err != nil {
		t.Fatalf("handleNextCommand failed: %v", err)
	}

	// seqd: the prepare's answer read by ExecuteFetch (upstream:
	// ExecuteStreamFetch, deleted).
	if _, err := cConn.ExecuteFetch(sql, 0, false); err != nil {
		t.Fatalf("ExecuteFetch(%v) failed: %v", sql, err)
		return
	}
}
