package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// field is one JSON property of a params struct, as read from its tags:
//
//	json:"name,omitempty"  the property; omitempty makes it optional, otherwise required
//	description:"…"        its description in the schema (keep it short: it is paid per request)
//	enum:"a,b"             its allowed values
//	alias:"x,y"            other names accepted from a model, never shown in the schema
type field struct {
	name     string
	index    int
	typ      reflect.Type
	required bool
	desc     string
	enum     []string
	aliases  []string
}

func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := field{name: name, index: i, typ: sf.Type, desc: sf.Tag.Get("description"),
			required: !strings.Contains(opts, "omitempty")}
		if e := sf.Tag.Get("enum"); e != "" {
			f.enum = strings.Split(e, ",")
		}
		if a := sf.Tag.Get("alias"); a != "" {
			f.aliases = strings.Split(a, ",")
		}
		out = append(out, f)
	}
	return out
}

// Schema returns the compact JSON Schema of a params struct type, properties in field order.
func Schema(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema of %s: params must be a struct", t)
	}
	var b bytes.Buffer
	if err := writeSchema(&b, t, "", nil); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeSchema(b *bytes.Buffer, t reflect.Type, desc string, enum []string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	b.WriteByte('{')
	switch t.Kind() {
	case reflect.Struct:
		b.WriteString(`"type":"object"`)
		writeDesc(b, desc)
		b.WriteString(`,"properties":{`)
		var req []string
		for i, f := range fieldsOf(t) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, f.name)
			b.WriteByte(':')
			if err := writeSchema(b, f.typ, f.desc, f.enum); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			if f.required {
				req = append(req, f.name)
			}
		}
		b.WriteByte('}')
		if len(req) > 0 {
			b.WriteString(`,"required":`)
			r, _ := json.Marshal(req)
			b.Write(r)
		}
	case reflect.Slice, reflect.Array:
		b.WriteString(`"type":"array"`)
		writeDesc(b, desc)
		b.WriteString(`,"items":`)
		if err := writeSchema(b, t.Elem(), "", nil); err != nil {
			return err
		}
	case reflect.Map:
		b.WriteString(`"type":"object"`)
		writeDesc(b, desc)
	default:
		js := jsonType(t)
		if js == "" {
			return fmt.Errorf("unsupported type %s", t)
		}
		b.WriteString(`"type":`)
		writeString(b, js)
		writeDesc(b, desc)
		if len(enum) > 0 {
			b.WriteString(`,"enum":`)
			e, _ := json.Marshal(enum)
			b.Write(e)
		}
	}
	b.WriteByte('}')
	return nil
}

func writeDesc(b *bytes.Buffer, desc string) {
	if desc != "" {
		b.WriteString(`,"description":`)
		writeString(b, desc)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

// jsonType names the JSON Schema type of a scalar Go type ("" if none).
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Interface:
		return "any"
	}
	return ""
}
