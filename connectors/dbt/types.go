package dbt

import (
	"strconv"
	"strings"

	"github.com/semcat/semcat"
)

// mapType maps a warehouse type as dbt reports it (catalog.json's type, or
// a column's data_type) onto a Gravitino type. exact is false when the
// result only approximates the source type (a JSON or geography column
// read as string, an unsized numeric); the importer then records the
// source type in the table's dbt.column_types property.
func mapType(raw string) (t *semcat.Type, exact bool) {
	s := strings.ToLower(strings.TrimSpace(raw))
	base, args := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		base, args = strings.TrimSpace(s[:i]), strings.ReplaceAll(s[i+1:len(s)-1], " ", "")
	}
	prim := func(name string) (*semcat.Type, bool) { return &semcat.Type{Name: name}, true }
	switch base {
	case "boolean", "bool":
		return prim("boolean")
	case "tinyint", "int1", "byteint", "byte":
		return prim("byte")
	case "smallint", "int2", "short":
		return prim("short")
	case "int", "integer", "int4", "signed", "mediumint":
		return prim("integer")
	case "bigint", "int8", "int64", "long":
		return prim("long")
	case "real", "float4":
		return prim("float")
	case "float", "float8", "double", "double precision", "float64":
		// Snowflake's, Redshift's and PostgreSQL's FLOAT are 64-bit.
		return prim("double")
	case "date":
		return prim("date")
	case "time", "time without time zone":
		return prim("time")
	case "timestamp", "timestamp_ntz", "datetime", "timestamp without time zone", "datetime2", "smalldatetime":
		return prim("timestamp")
	case "timestamp_tz", "timestamp_ltz", "timestamptz", "timestamp with time zone", "datetimeoffset":
		return prim("timestamp_tz")
	case "uuid", "uniqueidentifier":
		return prim("uuid")
	case "binary", "varbinary", "bytea", "blob", "bytes":
		return prim("binary")
	case "text", "string", "clob", "nvarchar", "varchar", "character varying", "nchar varying", "citext", "name":
		if n, ok := length(args); ok && base != "text" && base != "string" {
			return &semcat.Type{Name: "varchar(" + n + ")"}, true
		}
		return prim("string")
	case "char", "character", "nchar", "bpchar":
		if n, ok := length(args); ok {
			return &semcat.Type{Name: "char(" + n + ")"}, true
		}
		if base == "bpchar" {
			return prim("string")
		}
		return &semcat.Type{Name: "char(1)"}, true
	case "number", "numeric", "decimal", "bignumeric", "bigdecimal":
		if args == "" {
			// Snowflake's NUMBER is NUMBER(38,0); elsewhere an unsized
			// numeric has no fixed scale.
			return &semcat.Type{Name: "decimal(38,0)"}, base == "number"
		}
		p, sc, _ := strings.Cut(args, ",")
		if sc == "" {
			sc = "0"
		}
		pi, err1 := strconv.Atoi(p)
		si, err2 := strconv.Atoi(sc)
		if err1 != nil || err2 != nil || pi < 1 || si < 0 || si > pi {
			break
		}
		if pi > 38 {
			return &semcat.Type{Name: "decimal(38," + strconv.Itoa(min(si, 38)) + ")"}, false
		}
		return &semcat.Type{Name: "decimal(" + strconv.Itoa(pi) + "," + strconv.Itoa(si) + ")"}, true
	}
	return &semcat.Type{Name: "string"}, false
}

// length returns a type's length argument when it is a plain count.
func length(args string) (string, bool) {
	n, err := strconv.Atoi(args)
	if err != nil || n < 1 || n > 999_999_999 {
		return "", false
	}
	return strconv.Itoa(n), true
}
