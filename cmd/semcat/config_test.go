package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/api"
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
		{[]string{"--auth", "jwt"}, "mode jwt needs a key"},
		{[]string{"--anonymous-user", "a b"}, "anonymous-user: invalid name"},
		{[]string{"--anonymous-user", ""}, "anonymous-user: name is required"},
		{[]string{"--addr", "0.0.0.0:8090"}, "only on loopback"},
		{[]string{"--pprof-addr", "0.0.0.0:6060"}, "pprof-addr: must be a loopback address"},
		{[]string{"--pprof-addr", "6060"}, "pprof-addr"},
		{[]string{"--addr", "nonsense"}, "addr:"},
		{[]string{"--max-body-bytes", "-1"}, "max-body-bytes"},
		{[]string{"--index-cache-sweep", "-5s"}, "index-cache-sweep: want a duration"},
		{[]string{"--index-cache-sweep", "often"}, "index-cache-sweep: want a duration"},
		{[]string{"--index-resident-mib", "-1"}, "index-resident-mib: want a number of MiB >= 0"},
		{[]string{"--index-resident-mib", "1GiB"}, "index-resident-mib: want a number of MiB >= 0"},
		{[]string{"--consumer-timeout", "0"}, "consumer-timeout: want a positive duration"},
		{[]string{"--retention-deleted-after", "-1h"}, "retention-deleted-after: want a duration"},
		{[]string{"--scrub-sample", "0"}, "scrub-sample: want a number >= 1"},
		{[]string{"--retention-keep-versions", "two"}, "retention-keep-versions: want a number >= 1"},
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
	if c, err := LoadConfig([]string{"--index-cache-sweep", "0"}, none); err != nil || c.IndexCacheSweep != 0 || cacheSweep(c.IndexCacheSweep) >= 0 {
		t.Errorf("--index-cache-sweep 0 (off): %+v, %v", c.IndexCacheSweep, err)
	}
	if c, err := LoadConfig(nil, none); err != nil || residentIndex(c.IndexResidentMiB) != 384<<20 {
		t.Errorf("the default resident bound: %d MiB, %v; want 384 MiB", c.IndexResidentMiB, err)
	}
	if c, err := LoadConfig([]string{"--index-resident-mib", "0"}, none); err != nil || residentIndex(c.IndexResidentMiB) >= 0 {
		t.Errorf("--index-resident-mib 0 (no bound): %d, %v", c.IndexResidentMiB, err)
	}
	if c, err := LoadConfig([]string{"--retention-deleted-after", "0", "--scrub-sample", "3"}, none); err != nil || c.RetentionDeletedAfter != 0 || c.ScrubSample != 3 {
		t.Errorf("--retention-deleted-after 0 --scrub-sample 3: %v, %v, %v", c.RetentionDeletedAfter, c.ScrubSample, err)
	}
	for _, args := range [][]string{
		{"--auth", "simple", "--addr", "0.0.0.0:8090"},
		{"--auth", "jwt", "--jwt-issuer", "i", "--jwt-hs256-secret-file", "/s", "--addr", "0.0.0.0:8090"},
		{"--auth", "jwt", "--jwt-rs256-public-key-file", "/k", "--addr", ":8090"},
	} {
		if _, err := LoadConfig(args, none); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(file, []byte("adress: x\n"), 0o644)
	if _, err := LoadConfig([]string{"--config", file}, none); err == nil || !strings.Contains(err.Error(), "adress") {
		t.Errorf("unknown config key: %v", err)
	}
}

func TestConfigAuthSettings(t *testing.T) {
	none := func(string) string { return "" }
	c, err := LoadConfig(nil, none)
	if err != nil {
		t.Fatal(err)
	}
	if c.Auth != "none" || c.AnonymousUser != "anonymous" {
		t.Errorf("defaults: auth %q, anonymous-user %q", c.Auth, c.AnonymousUser)
	}

	file := filepath.Join(t.TempDir(), "semcat.yaml")
	yaml := "auth: jwt\njwt-hs256-secret-file: /file/secret\njwt-rs256-public-key-file: /file/key.pem\n" +
		"jwt-issuer: file-iss\njwt-audience: file-aud\nanonymous-user: file-user\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"SEMCAT_CONFIG":                    file,
		"SEMCAT_JWT_HS256_SECRET_FILE":     "/env/secret",
		"SEMCAT_JWT_RS256_PUBLIC_KEY_FILE": "/env/key.pem",
		"SEMCAT_JWT_ISSUER":                "env-iss",
		"SEMCAT_ANONYMOUS_USER":            "env-user",
	}
	getenv := func(k string) string { return env[k] }
	c, err = LoadConfig([]string{"--jwt-issuer", "flag-iss", "--jwt-hs256-secret-file", "/flag/secret"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	// Flags win over the environment, the environment over the file.
	want := DefaultConfig()
	want.Auth, want.AnonymousUser = "jwt", "env-user"
	want.JWTHS256SecretFile, want.JWTRS256PublicKeyFile = "/flag/secret", "/env/key.pem"
	want.JWTIssuer, want.JWTAudience = "flag-iss", "file-aud"
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestConfigAuthConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "0123456789abcdef0123456789abcdef"
	secretFile := write("secret", []byte(secret+"\n"))
	keyFile := write("key.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	shortFile := write("short", []byte("short\n"))
	emptyFile := write("empty", []byte("\n"))
	badKeyFile := write("bad.pem", []byte("not a key"))
	missing := filepath.Join(dir, "missing")

	jwtConfig := func(secretFile, keyFile string) Config {
		c := DefaultConfig()
		c.Auth, c.JWTHS256SecretFile, c.JWTRS256PublicKeyFile = "jwt", secretFile, keyFile
		c.JWTIssuer, c.JWTAudience = "iss", "aud"
		return c
	}

	ac, err := jwtConfig(secretFile, keyFile).AuthConfig()
	if err != nil {
		t.Fatal(err)
	}
	if ac.Mode != "jwt" || string(ac.JWT.HS256Secret) != secret || len(ac.JWT.RS256PublicKey) == 0 ||
		ac.JWT.Issuer != "iss" || ac.JWT.Audience != "aud" {
		t.Errorf("AuthConfig() = %+v", ac)
	}
	auth, err := api.NewAuthenticator(ac)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/api/metalakes", nil)
	req.Header.Set("Authorization", "Bearer "+mustSign(t, jwt.SigningMethodHS256, []byte(secret)))
	if user, err := auth(req); err != nil || user != "alice" {
		t.Errorf("token signed with the file's secret (newline trimmed): user %q, err %v", user, err)
	}
	req.Header.Set("Authorization", "Bearer "+mustSign(t, jwt.SigningMethodRS256, key))
	if user, err := auth(req); err != nil || user != "alice" {
		t.Errorf("token signed with the file's RSA key: user %q, err %v", user, err)
	}

	c := DefaultConfig()
	c.AnonymousUser = "guest"
	if ac, err := c.AuthConfig(); err != nil || ac.Mode != "none" || ac.AnonymousUser != "guest" {
		t.Errorf("mode none: %+v, %v", ac, err)
	}

	tests := []struct {
		name string
		c    Config
		want string
	}{
		{"missing secret file", jwtConfig(missing, ""), "jwt-hs256-secret-file: open " + missing},
		{"empty secret file", jwtConfig(emptyFile, ""), "jwt-hs256-secret-file: " + emptyFile + " is empty"},
		{"short secret", jwtConfig(shortFile, ""), "jwt-hs256-secret-file " + shortFile + ": auth: JWT.HS256Secret is 5 bytes"},
		{"missing key file", jwtConfig("", missing), "jwt-rs256-public-key-file: open " + missing},
		{"bad key file", jwtConfig(secretFile, badKeyFile), "jwt-rs256-public-key-file " + badKeyFile + ": auth: JWT.RS256PublicKey: no PEM block"},
	}
	for _, tt := range tests {
		if _, err := tt.c.AuthConfig(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// mustSign returns a token for user alice, valid for an hour.
func mustSign(tb testing.TB, method jwt.SigningMethod, key any) string {
	tb.Helper()
	s, err := jwt.NewWithClaims(method, jwt.MapClaims{"sub": "alice", "iss": "iss", "aud": "aud",
		"exp": time.Now().Add(time.Hour).Unix()}).SignedString(key)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
