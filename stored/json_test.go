package stored_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"providerdir/mapping/fhirmap"
	"providerdir/stored"
)

// storedTypes are the shapes the codec encodes at ingest: every record body and every FHIR
// resource.
func storedTypes() []any {
	return []any{
		&stored.Body[stored.RegistryRecord]{}, &stored.Body[stored.Address]{}, &stored.Body[stored.OtherNameRecord]{},
		&stored.Body[stored.EnrollmentRecord]{}, &stored.Body[stored.HospitalEnrollmentRecord]{},
		&stored.Body[stored.ReassignmentRecord]{}, &stored.Body[stored.ExclusionRecord]{},
		&stored.Body[stored.FacilityRecord]{}, &stored.Body[stored.QualityRecord]{}, &stored.Body[stored.PaymentRecord]{},
		&fhirmap.Practitioner{}, &fhirmap.PractitionerRole{}, &fhirmap.Organization{}, &fhirmap.Location{},
		&fhirmap.HealthcareService{}, &fhirmap.Meta{},
	}
}

// fill sets every field reachable from v: strings alternate between a and b, numbers are x,
// booleans flag, pointers are allocated and slices hold two elements, so that every member,
// omitempty or not, is encoded. Recursive shapes (an extension's extensions) stop after a few
// levels.
func fill(v reflect.Value, a, b string, x float64, flag bool, n *int) {
	fillDepth(v, a, b, x, flag, n, 0)
}

func fillDepth(v reflect.Value, a, b string, x float64, flag bool, n *int, depth int) {
	if depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		*n++
		if *n%2 == 0 {
			v.SetString(a)
		} else {
			v.SetString(b)
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(x)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(x))
	case reflect.Bool:
		v.SetBool(flag)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillDepth(v.Elem(), a, b, x, flag, n, depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillDepth(v.Index(i), a, b, x, flag, n, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillDepth(v.Field(i), a, b, x, flag, n, depth+1)
			}
		}
	}
}

// shortEscapes rewrites the codec's escapes of backspace and form feed into the short forms
// encoding/json has written since Go 1.22: the one way their bytes differ.
func shortEscapes(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(`\u0008`), []byte(`\b`))
	return bytes.ReplaceAll(b, []byte(`\u000c`), []byte(`\f`))
}

// FuzzCodecMatchesStandard holds the stored-record codec to encoding/json: the same bytes (or
// both failing) for every stored shape with any text and number in it, but for the escapes of
// two control characters, and the same value decoded back.
func FuzzCodecMatchesStandard(f *testing.F) {
	f.Add("Zoë O'Brien-Núñez", "<a href=\"x\">&amp;</a>", 0.85, true)
	f.Add("\x00\x1f\u2028\u2029\ufffd", "\xff\xfe invalid", 1e21, false)
	f.Add("", "", 1.0, true)
	f.Fuzz(func(t *testing.T, a, b string, x float64, flag bool) {
		for _, proto := range storedTypes() {
			typ := reflect.TypeOf(proto).Elem()
			v := reflect.New(typ)
			n := 0
			fill(v.Elem(), a, b, x, flag, &n)
			want, wantErr := json.Marshal(v.Interface())
			got, err := stored.EncodeJSON(v.Interface())
			if (err == nil) != (wantErr == nil) || !bytes.Equal(shortEscapes(got), want) {
				t.Fatalf("%s: encoded\n%s (%v), encoding/json\n%s (%v)", typ, got, err, want, wantErr)
			}
			if err != nil {
				continue
			}
			if appended, err := stored.AppendJSON([]byte("prefix"), v.Interface()); err != nil || string(appended) != "prefix"+string(got) {
				t.Fatalf("%s: AppendJSON gave\n%s (%v), EncodeJSON\n%s", typ, appended, err, got)
			}
			back, stdBack := reflect.New(typ), reflect.New(typ)
			if err := stored.DecodeJSON(want, back.Interface()); err != nil {
				t.Fatalf("%s: decode %s: %v", typ, want, err)
			}
			if err := json.Unmarshal(want, stdBack.Interface()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Interface(), stdBack.Interface()) {
				t.Fatalf("%s: decoded %+v, encoding/json %+v", typ, back.Elem(), stdBack.Elem())
			}
		}
	})
}

// BenchmarkCodec compares the codec with encoding/json on a registry record as stored.
func BenchmarkCodec(b *testing.B) {
	v := &stored.Body[stored.RegistryRecord]{}
	n := 0
	fill(reflect.ValueOf(v).Elem(), "Santa Fe", "207RC0000X", 1, true, &n)
	body, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	codecs := []struct {
		name   string
		encode func(any) ([]byte, error)
		decode func([]byte, any) error
	}{
		{"codec", stored.EncodeJSON, stored.DecodeJSON},
		{"encoding-json", json.Marshal, json.Unmarshal},
	}
	for _, c := range codecs {
		b.Run("encode/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.encode(v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var out stored.Body[stored.RegistryRecord]
				if err := c.decode(body, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
