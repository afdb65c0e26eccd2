package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "semcat.yaml")
	if err := os.WriteFile(file, []byte("addr: 127.0.0.1:1111\ndata-dir: /from/file\ndemo: true\nmax-body-bytes: 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SEMCAT_CONFIG": file, "SEMCAT_ADDR": "127.0.0.1:2222", "DATABASE_URL": "postgres://env/db"}
	getenv := func(k string) string { return env[k] }

	c, err := LoadConfig([]string{"--addr", "127.0.0.1:3333"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:3333" {
		t.Errorf("addr %q: the flag should win", c.Addr)
	}
	if c.DataDir != "/from/file" || !c.Demo || c.MaxBodyBytes != 1000 {
		t.Errorf("file values lost: %+v", c)
	}
	if c.DatabaseURL != "postgres://env/db" {
		t.Errorf("DATABASE_URL not used: %q", c.DatabaseURL)
	}

	c, err = LoadConfig(nil, getenv)
	if err != nil || c.Addr != "127.0.0.1:2222" {
		t.Errorf("addr %q (%v): the environment should win over the file", c.Addr, err)
	}
	env["SEMCAT_DATABASE_URL"] = "postgres://semcat/db"
	if c, _ := LoadConfig(nil, getenv); c.DatabaseURL != "postgres://semcat/db" {
		t.Errorf("SEMCAT_DATABASE_URL should win over DATABASE_URL: %q", c.DatabaseURL)
	}
	if c, _ := LoadConfig([]string{"--demo=false"}, getenv); c.Demo {
		t.Error("--demo=false should override the file")
	}
}

func TestConfigErrors(t *testing.T) {
	none := func(string) string { return "" }
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--auth", "kerberos"}, "auth: unknown mode"},
		{[]string{"--addr", "0.0.0.0:8090"}, "only on loopback"},
		{[]string{"--addr", "nonsense"}, "addr:"},
		{[]string{"--max-body-bytes", "-1"}, "max-body-bytes"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		_, err := LoadConfig(tt.args, none)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
	if _, err := LoadConfig([]string{"--addr", "0.0.0.0:8090", "--allow-remote"}, none); err != nil {
		t.Errorf("--allow-remote: %v", err)
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(file, []byte("adress: x\n"), 0o644)
	if _, err := LoadConfig([]string{"--config", file}, none); err == nil || !strings.Contains(err.Error(), "adress") {
		t.Errorf("unknown config key: %v", err)
	}
}
