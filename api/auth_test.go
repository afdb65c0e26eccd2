package api_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
)

// authFakeMetalakes answers ListMetalakes with one metalake named after the
// request's user, so that a test can see whom a request ran as.
type authFakeMetalakes struct{}

var _ semcat.MetalakeService = authFakeMetalakes{}

func (authFakeMetalakes) ListMetalakes(ctx context.Context) ([]*semcat.Metalake, error) {
	return []*semcat.Metalake{{Name: semcat.UserFromContext(ctx)}}, nil
}

func (authFakeMetalakes) CreateMetalake(context.Context, semcat.MetalakeCreate) (*semcat.Metalake, semcat.Position, error) {
	return nil, semcat.Position{}, semcat.Errorf(semcat.EUNSUPPORTED, "not in this fake")
}

func (authFakeMetalakes) GetMetalake(context.Context, string) (*semcat.Metalake, error) {
	return nil, semcat.Errorf(semcat.EUNSUPPORTED, "not in this fake")
}

func (authFakeMetalakes) AlterMetalake(context.Context, string, []semcat.Update) (*semcat.Metalake, semcat.Position, error) {
	return nil, semcat.Position{}, semcat.Errorf(semcat.EUNSUPPORTED, "not in this fake")
}

func (authFakeMetalakes) DropMetalake(context.Context, string, bool) (bool, semcat.Position, error) {
	return false, semcat.Position{}, semcat.Errorf(semcat.EUNSUPPORTED, "not in this fake")
}

func (authFakeMetalakes) SetMetalakeInUse(context.Context, string, bool) (semcat.Position, error) {
	return semcat.Position{}, semcat.Errorf(semcat.EUNSUPPORTED, "not in this fake")
}

// testSecret is an HS256 key of the minimum length.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// authKeys are the RSA keys of the JWT tests and their public halves in
// every accepted PEM form.
type authKeys struct {
	priv, other   *rsa.PrivateKey
	pkix, pkcs1   []byte
	cert          []byte
	otherPKIX     []byte
	ecPKIX        []byte
	smallRSAPKIX  []byte
	privatePKCS1  []byte
	notPEM        []byte
	unknownPEMTyp []byte
}

func newAuthKeys(tb testing.TB) authKeys {
	tb.Helper()
	gen := func(bits int) *rsa.PrivateKey {
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			tb.Fatal(err)
		}
		return k
	}
	pkixPEM := func(pub any) []byte {
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			tb.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}
	k := authKeys{priv: gen(2048), other: gen(2048)}
	k.pkix = pkixPEM(&k.priv.PublicKey)
	k.pkcs1 = pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.priv.PublicKey)})
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "semcat test issuer"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.priv.PublicKey, k.priv)
	if err != nil {
		tb.Fatal(err)
	}
	k.cert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	k.otherPKIX = pkixPEM(&k.other.PublicKey)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	k.ecPKIX = pkixPEM(&ec.PublicKey)
	k.smallRSAPKIX = pkixPEM(&gen(1024).PublicKey)
	k.privatePKCS1 = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k.priv)})
	k.notPEM = []byte("not a key")
	k.unknownPEMTyp = pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{1}})
	return k
}

// sign returns a token of claims signed with method and key.
func sign(tb testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	tb.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// claims returns valid claims for sub, expiring in an hour, with extra
// claims added (a nil value removes one).
func claims(sub string, extra ...any) jwt.MapClaims {
	c := jwt.MapClaims{"sub": sub, "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(c, extra[i].(string))
		} else {
			c[extra[i].(string)] = extra[i+1]
		}
	}
	return c
}

func basic(userpass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userpass))
}

func TestAuthenticator(t *testing.T) {
	keys := newAuthKeys(t)
	now := time.Now()
	hs := api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{HS256Secret: testSecret}}
	hsIssAud := api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{HS256Secret: testSecret, Issuer: "https://idp.example", Audience: "semcat"}}
	rs := api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{RS256PublicKey: keys.pkix}}
	both := api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{HS256Secret: testSecret, RS256PublicKey: keys.pkcs1}}
	simple := api.AuthConfig{Mode: "simple"}

	hsToken := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, testSecret, c) }
	rsToken := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodRS256, keys.priv, c) }
	bearer := func(token string) []string { return []string{"Authorization", "Bearer " + token} }

	tests := []struct {
		name    string
		cfg     api.AuthConfig
		headers []string
		// want is the user the request runs as, or "" when it must fail
		// with 401 and a message containing wantErr.
		want    string
		wantErr string
	}{
		{"none", api.AuthConfig{Mode: "none"}, nil, "anonymous", ""},
		{"none ignores credentials", api.AuthConfig{Mode: "none"}, bearer("garbage"), "anonymous", ""},
		{"none custom user", api.AuthConfig{Mode: "none", AnonymousUser: "guest"}, []string{"Authorization", basic("alice:x")}, "guest", ""},

		{"simple", simple, []string{"Authorization", basic("alice:secret")}, "alice", ""},
		{"simple scheme case-insensitive", simple, []string{"Authorization", "basic " + base64.StdEncoding.EncodeToString([]byte("bob:"))}, "bob", ""},
		{"simple password may contain colons", simple, []string{"Authorization", basic("carol:a:b")}, "carol", ""},
		{"simple without header", simple, nil, "", "missing Authorization header: this server requires HTTP Basic"},
		{"simple with Bearer", simple, bearer(hsToken(claims("alice"))), "", `unsupported Authorization scheme "Bearer"`},
		{"simple bad base64", simple, []string{"Authorization", "Basic !!!not-base64"}, "", "not valid base64"},
		{"simple empty user", simple, []string{"Authorization", basic(":secret")}, "", "empty user name"},
		{"simple no colon", simple, []string{"Authorization", basic("alice")}, "", "no ':' after the user name"},
		{"simple invalid user name", simple, []string{"Authorization", basic("al ice:x")}, "", "invalid user name in Basic credentials"},
		{"simple empty credentials", simple, []string{"Authorization", "Basic "}, "", "malformed Authorization header"},
		{"simple bare credentials", simple, []string{"Authorization", base64.StdEncoding.EncodeToString([]byte("alice:x"))}, "", "malformed Authorization header"},
		{"simple two headers", simple, []string{"Authorization", basic("alice:x"), "Authorization", basic("bob:x")}, "", "more than one Authorization header"},

		{"jwt HS256", hs, bearer(hsToken(claims("alice"))), "alice", ""},
		{"jwt scheme case-insensitive", hs, []string{"Authorization", "bearer " + hsToken(claims("alice"))}, "alice", ""},
		{"jwt sub need not be an entity name", hs, bearer(hsToken(claims("alice@example.com"))), "alice@example.com", ""},
		{"jwt issuer and audience", hsIssAud, bearer(hsToken(claims("alice", "iss", "https://idp.example", "aud", "semcat"))), "alice", ""},
		{"jwt audience list", hsIssAud, bearer(hsToken(claims("alice", "iss", "https://idp.example", "aud", []string{"other", "semcat"}))), "alice", ""},
		{"jwt expiry within leeway", hs, bearer(hsToken(claims("alice", "exp", now.Add(-10*time.Second).Unix()))), "alice", ""},
		{"jwt RS256 PKIX key", rs, bearer(rsToken(claims("bob"))), "bob", ""},
		{"jwt RS256 PKCS1 key, HS256 too", both, bearer(rsToken(claims("bob"))), "bob", ""},
		{"jwt HS256, RS256 too", both, bearer(hsToken(claims("alice"))), "alice", ""},
		{"jwt RS256 certificate", api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{RS256PublicKey: keys.cert}}, bearer(rsToken(claims("bob"))), "bob", ""},

		{"jwt without header", hs, nil, "", "missing Authorization header: this server requires a Bearer token"},
		{"jwt with Basic", hs, []string{"Authorization", basic("alice:x")}, "", `unsupported Authorization scheme "Basic"`},
		{"jwt bare token", hs, []string{"Authorization", hsToken(claims("alice"))}, "", "malformed Authorization header"},
		{"jwt malformed token", hs, bearer("abc.def"), "", "malformed token"},
		{"jwt garbage token", hs, bearer("a.b.c"), "", "malformed token"},
		{"jwt expired", hs, bearer(hsToken(claims("alice", "exp", now.Add(-time.Hour).Unix()))), "", "token expired"},
		{"jwt without exp", hs, bearer(hsToken(claims("alice", "exp", nil))), "", "no exp claim"},
		{"jwt not yet valid", hs, bearer(hsToken(claims("alice", "nbf", now.Add(time.Hour).Unix()))), "", "not valid yet"},
		{"jwt issued in the future", hs, bearer(hsToken(claims("alice", "iat", now.Add(time.Hour).Unix()))), "", "issued in the future"},
		{"jwt wrong issuer", hsIssAud, bearer(hsToken(claims("alice", "iss", "evil", "aud", "semcat"))), "", `token issuer "evil" is not accepted`},
		{"jwt missing issuer", hsIssAud, bearer(hsToken(claims("alice", "aud", "semcat"))), "", "no iss claim"},
		{"jwt wrong audience", hsIssAud, bearer(hsToken(claims("alice", "iss", "https://idp.example", "aud", "other"))), "", `token audience ["other"] is not accepted`},
		{"jwt missing audience", hsIssAud, bearer(hsToken(claims("alice", "iss", "https://idp.example"))), "", "no aud claim"},
		{"jwt missing sub", hs, bearer(hsToken(claims("alice", "sub", nil))), "", "no sub claim"},
		// Strict claims and headers (SPEC §6).
		{"jwt exp as a string of digits", hs, bearer(hsToken(claims("alice", "exp", fmt.Sprint(now.Add(time.Hour).Unix())))), "", "token claim exp must be a number of seconds since 1970 (a NumericDate), not a string"},
		{"jwt iat as a string", hs, bearer(hsToken(claims("alice", "iat", fmt.Sprint(now.Unix())))), "", "claim iat must be a number"},
		{"jwt unknown crit header", hs, bearer(withHeader(t, "crit", []string{"x-unknown"}, claims("alice"))), "", "token header has crit"},
		{"jwt sub *", hs, bearer(hsToken(claims("*"))), "", `token sub "*" names no user`},
		{"jwt sub with a newline", hs, bearer(hsToken(claims("alice\nadmin"))), "", "control character"},
		{"jwt sub with spaces around", hs, bearer(hsToken(claims(" alice"))), "", "white space"},
		{"jwt other secret", hs, bearer(sign(t, jwt.SigningMethodHS256, []byte("another secret of at least 32 bytes"), claims("alice"))), "", "invalid token signature"},
		{"jwt RS256 other key", rs, bearer(sign(t, jwt.SigningMethodRS256, keys.other, claims("bob"))), "", "invalid token signature"},
		{"jwt alg none", hs, bearer(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims("alice"))), "", `algorithm "none" is not accepted (accepted: HS256)`},
		{"jwt HS384", hs, bearer(sign(t, jwt.SigningMethodHS384, testSecret, claims("alice"))), "", `algorithm "HS384" is not accepted`},
		{"jwt unknown alg", hs, bearer(unknownAlgToken()), "", `algorithm "XX999" is not accepted`},
		{"jwt RS256 without RSA key", hs, bearer(rsToken(claims("bob"))), "", `algorithm "RS256" is not accepted (accepted: HS256)`},
		// Algorithm confusion: the public key, which attackers know, used
		// as an HMAC secret must not verify.
		{"jwt HS256 with the RSA public key as secret", rs, bearer(sign(t, jwt.SigningMethodHS256, keys.pkix, claims("mallory"))), "", `algorithm "HS256" is not accepted (accepted: RS256)`},
		{"jwt HS256 with the RSA public key as secret, both keys", both, bearer(sign(t, jwt.SigningMethodHS256, keys.pkcs1, claims("mallory"))), "", "invalid token signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth, err := api.NewAuthenticator(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := apitest.NewServerWithConfig(t, api.Services{Metalakes: authFakeMetalakes{}}, api.Config{Authenticate: auth})
			status, _, body := c.Do("GET", "/api/metalakes", nil, tt.headers...)
			if tt.want != "" {
				if status != http.StatusOK {
					t.Fatalf("status %d, want 200; body %v", status, body)
				}
				ms, _ := body["metalakes"].([]any)
				if len(ms) != 1 {
					t.Fatalf("body %v: want one metalake", body)
				}
				if got := ms[0].(map[string]any)["name"]; got != tt.want {
					t.Errorf("request ran as %q, want %q", got, tt.want)
				}
				return
			}
			if status != http.StatusUnauthorized || body["code"] != float64(1011) || body["type"] != "UnauthorizedException" {
				t.Fatalf("got %d %v, want 401 with code 1011 UnauthorizedException", status, body)
			}
			msg, _ := body["message"].(string)
			if !strings.Contains(msg, tt.wantErr) {
				t.Errorf("message %q does not contain %q", msg, tt.wantErr)
			}
			for i := 0; i+1 < len(tt.headers); i += 2 {
				if _, creds, _ := strings.Cut(tt.headers[i+1], " "); len(creds) > 8 && strings.Contains(msg, creds) {
					t.Errorf("message %q echoes the credentials", msg)
				}
			}
		})
	}
}

// withHeader returns an HS256 token of claims whose header also has name.
func withHeader(tb testing.TB, name string, value any, c jwt.MapClaims) string {
	tb.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	tok.Header[name] = value
	s, err := tok.SignedString(testSecret)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// unknownAlgToken returns an unsigned token whose header names an algorithm
// nobody implements.
func unknownAlgToken() string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"XX999","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"alice"}`)) + "." + enc([]byte("sig"))
}

func TestNewAuthenticatorErrors(t *testing.T) {
	keys := newAuthKeys(t)
	jwtWith := func(c api.JWTConfig) api.AuthConfig { return api.AuthConfig{Mode: "jwt", JWT: c} }
	tests := []struct {
		name string
		cfg  api.AuthConfig
		want string // in the error; "" means the configuration is valid
	}{
		{"none", api.AuthConfig{Mode: "none"}, ""},
		{"simple", api.AuthConfig{Mode: "simple"}, ""},
		{"both keys", jwtWith(api.JWTConfig{HS256Secret: testSecret, RS256PublicKey: keys.cert}), ""},
		{"empty mode", api.AuthConfig{}, `unknown Mode ""`},
		{"unknown mode", api.AuthConfig{Mode: "kerberos"}, `unknown Mode "kerberos"`},
		{"invalid anonymous user", api.AuthConfig{Mode: "none", AnonymousUser: "a b"}, "AnonymousUser"},
		{"jwt without keys", jwtWith(api.JWTConfig{Issuer: "x"}), "needs JWT.HS256Secret or JWT.RS256PublicKey"},
		{"short secret", jwtWith(api.JWTConfig{HS256Secret: []byte("short")}), "JWT.HS256Secret is 5 bytes"},
		{"not PEM", jwtWith(api.JWTConfig{RS256PublicKey: keys.notPEM}), "JWT.RS256PublicKey: no PEM block"},
		{"private key", jwtWith(api.JWTConfig{RS256PublicKey: keys.privatePKCS1}), `JWT.RS256PublicKey: PEM block is "RSA PRIVATE KEY"`},
		{"unknown PEM type", jwtWith(api.JWTConfig{RS256PublicKey: keys.unknownPEMTyp}), `JWT.RS256PublicKey: PEM block is "EC PARAMETERS"`},
		{"corrupt key", jwtWith(api.JWTConfig{RS256PublicKey: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1, 2}})}), "JWT.RS256PublicKey: parsing PUBLIC KEY"},
		{"EC key", jwtWith(api.JWTConfig{RS256PublicKey: keys.ecPKIX}), "not an RSA public key"},
		{"small RSA key", jwtWith(api.JWTConfig{RS256PublicKey: keys.smallRSAPKIX}), "1024 bits"},
		{"negative leeway", jwtWith(api.JWTConfig{HS256Secret: testSecret, Leeway: -time.Second}), "JWT.Leeway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth, err := api.NewAuthenticator(tt.cfg)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want == "" && auth == nil:
				t.Fatal("nil authenticator")
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
