package storeopen

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Spec
		wantErr bool
		str     string
	}{
		{in: "embedded:./data/db", want: Spec{Backend: BackendEmbedded, Dir: "./data/db"}, str: "embedded:./data/db"},
		{in: "embedded:/var/lib/providerd", want: Spec{Backend: BackendEmbedded, Dir: "/var/lib/providerd"}, str: "embedded:/var/lib/providerd"},
		{in: "mongodb://localhost:27017/pd", want: Spec{Backend: BackendMongo, URI: "mongodb://localhost:27017/pd"}, str: "mongodb://localhost:27017/pd"},
		{in: "mongodb+srv://u:pw@cluster.example.org/pd?retryWrites=true",
			want: Spec{Backend: BackendMongo, URI: "mongodb+srv://u:pw@cluster.example.org/pd?retryWrites=true"},
			str:  "mongodb+srv://u:xxxxx@cluster.example.org/pd?retryWrites=true"},
		{in: "mongodb://a:1,b:2/pd?replicaSet=rs0", want: Spec{Backend: BackendMongo, URI: "mongodb://a:1,b:2/pd?replicaSet=rs0"}, str: "mongodb://a:1,b:2/pd?replicaSet=rs0"},
		{in: "./data/db", wantErr: true},
		{in: "embedded:", wantErr: true},
		{in: "", wantErr: true},
		{in: "mongodb://", wantErr: true},
		{in: "pebble:/x", wantErr: true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Parse(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if got.String() != tt.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got.String(), tt.str)
		}
	}
}
