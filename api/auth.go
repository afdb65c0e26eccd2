package api

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/semcat/semcat"
)

// Authentication modes (SPEC §6).
const (
	AuthNone   = "none"
	AuthSimple = "simple"
	AuthJWT    = "jwt"
)

// DefaultJWTLeeway is the clock skew allowed for exp, nbf and iat when
// JWTConfig.Leeway is zero.
const DefaultJWTLeeway = 30 * time.Second

// Key sizes below these are rejected: RFC 7518 §3.2 requires an HS256 key of
// at least the hash size, and RSA keys under 2048 bits are breakable.
const (
	minHS256SecretBytes = 32
	minRSAKeyBits       = 2048
)

// AuthConfig configures authentication (SPEC §6).
type AuthConfig struct {
	// Mode is "none", "simple" or "jwt".
	Mode string
	// AnonymousUser is the user of every request in mode none. Default
	// AnonymousUser ("anonymous").
	AnonymousUser string
	// JWT configures mode jwt.
	JWT JWTConfig
}

// JWTConfig configures the validation of Bearer tokens in mode jwt.
type JWTConfig struct {
	// HS256Secret is the HMAC key of HS256 tokens (at least 32 bytes). Set
	// this or RS256PublicKey, or both; only the algorithms with a key are
	// accepted.
	HS256Secret []byte
	// RS256PublicKey verifies RS256 tokens: PEM, either a PKIX "PUBLIC KEY",
	// a PKCS #1 "RSA PUBLIC KEY" or an X.509 "CERTIFICATE".
	RS256PublicKey []byte
	// Issuer, when set, must equal the token's "iss".
	Issuer string
	// Audience, when set, must be one of the token's "aud".
	Audience string
	// Leeway is the clock skew allowed for exp, nbf and iat. Default
	// DefaultJWTLeeway.
	Leeway time.Duration
}

// NewAuthenticator returns the function for Config.Authenticate that
// implements cfg, or an error naming the setting that makes cfg invalid.
// In modes simple and jwt a request without valid credentials fails with an
// EUNAUTHORIZED error that says what is wrong; there is no anonymous
// fallback.
func NewAuthenticator(cfg AuthConfig) (func(r *http.Request) (string, error), error) {
	switch cfg.Mode {
	case AuthNone:
		user := cfg.AnonymousUser
		if user == "" {
			user = AnonymousUser
		}
		if err := semcat.ValidateName("AnonymousUser", user); err != nil {
			return nil, fmt.Errorf("auth: %s", semcat.ErrorMessage(err))
		}
		return func(*http.Request) (string, error) { return user, nil }, nil
	case AuthSimple:
		return authenticateSimple, nil
	case AuthJWT:
		v, err := newJWTVerifier(cfg.JWT)
		if err != nil {
			return nil, err
		}
		return v.authenticate, nil
	default:
		return nil, fmt.Errorf("auth: unknown Mode %q (want %s, %s or %s)", cfg.Mode, AuthNone, AuthSimple, AuthJWT)
	}
}

// unauthorized returns the EUNAUTHORIZED error of a rejected request.
func unauthorized(format string, args ...any) error {
	return semcat.Errorf(semcat.EUNAUTHORIZED, format, args...)
}

// credentials returns the credentials of r's Authorization header if its
// scheme is want (case-insensitive, RFC 9110 §11.1). describe says what the
// server expects, for the error messages.
func credentials(r *http.Request, want, describe string) (string, error) {
	values := r.Header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", unauthorized("missing Authorization header: this server requires %s", describe)
	case 1:
	default:
		return "", unauthorized("more than one Authorization header: this server requires exactly one, with %s", describe)
	}
	scheme, creds, found := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !found {
		// Without a space the whole value may be a bare token: never echo it.
		return "", unauthorized("malformed Authorization header: this server requires %s", describe)
	}
	if !strings.EqualFold(scheme, want) {
		if isSchemeName(scheme) {
			return "", unauthorized("unsupported Authorization scheme %q: this server requires %s", scheme, describe)
		}
		return "", unauthorized("malformed Authorization header: this server requires %s", describe)
	}
	// The value was trimmed, so creds holds more than spaces.
	return strings.TrimSpace(creds), nil
}

// isSchemeName reports whether s looks like an authentication scheme name
// (Basic, Bearer, Digest, Negotiate, ...), so that echoing it cannot leak a
// credential.
func isSchemeName(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

const simpleDescribe = `HTTP Basic authentication ("Basic " + base64(user:password); the password is ignored)`

// authenticateSimple implements mode simple, Gravitino's: the user name of
// HTTP Basic credentials is the user; the password is not checked.
func authenticateSimple(r *http.Request) (string, error) {
	creds, err := credentials(r, "Basic", simpleDescribe)
	if err != nil {
		return "", err
	}
	decoded, err := base64.StdEncoding.DecodeString(creds)
	if err != nil {
		return "", unauthorized("malformed Basic credentials: not valid base64 (want base64(user:password))")
	}
	user, _, found := strings.Cut(string(decoded), ":")
	if !found {
		return "", unauthorized("malformed Basic credentials: no ':' after the user name (want base64(user:password))")
	}
	if user == "" {
		return "", unauthorized("Basic credentials have an empty user name")
	}
	if err := semcat.ValidateName("user", user); err != nil {
		return "", unauthorized("invalid user name in Basic credentials: %s", semcat.ErrorMessage(err))
	}
	return user, nil
}

// jwtVerifier implements mode jwt.
type jwtVerifier struct {
	hmacKey  []byte         // nil: HS256 not accepted
	rsaKey   *rsa.PublicKey // nil: RS256 not accepted
	methods  []string       // the accepted algorithms, those with a key
	describe string         // what the server expects, for error messages
	parser   *jwt.Parser
	issuer   string
	audience string
}

func newJWTVerifier(cfg JWTConfig) (*jwtVerifier, error) {
	v := &jwtVerifier{issuer: cfg.Issuer, audience: cfg.Audience}
	if len(cfg.HS256Secret) > 0 {
		if len(cfg.HS256Secret) < minHS256SecretBytes {
			return nil, fmt.Errorf("auth: JWT.HS256Secret is %d bytes; HS256 needs at least %d", len(cfg.HS256Secret), minHS256SecretBytes)
		}
		v.hmacKey = cfg.HS256Secret
		v.methods = append(v.methods, jwt.SigningMethodHS256.Alg())
	}
	if len(cfg.RS256PublicKey) > 0 {
		key, err := parseRSAPublicKey(cfg.RS256PublicKey)
		if err != nil {
			return nil, fmt.Errorf("auth: JWT.RS256PublicKey: %w", err)
		}
		v.rsaKey = key
		v.methods = append(v.methods, jwt.SigningMethodRS256.Alg())
	}
	if len(v.methods) == 0 {
		return nil, errors.New("auth: mode jwt needs JWT.HS256Secret or JWT.RS256PublicKey (or both)")
	}
	v.describe = `a Bearer token ("Bearer " + a JWT signed with ` + strings.Join(v.methods, " or ") + ")"
	leeway := cfg.Leeway
	if leeway < 0 {
		return nil, fmt.Errorf("auth: JWT.Leeway %v is negative", leeway)
	}
	if leeway == 0 {
		leeway = DefaultJWTLeeway
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(v.methods),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway),
	}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// parseRSAPublicKey reads the first PEM block of data as an RSA public key.
func parseRSAPublicKey(data []byte) (*rsa.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New(`no PEM block found (want "PUBLIC KEY", "RSA PUBLIC KEY" or "CERTIFICATE")`)
	}
	var key any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = cert.PublicKey
		}
	default:
		return nil, fmt.Errorf(`PEM block is %q (want "PUBLIC KEY", "RSA PUBLIC KEY" or "CERTIFICATE")`, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", block.Type, err)
	}
	rsaKey, ok := key.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s holds a %T, not an RSA public key", block.Type, key)
	}
	if bits := rsaKey.N.BitLen(); bits < minRSAKeyBits {
		return nil, fmt.Errorf("RSA key has %d bits; at least %d are required", bits, minRSAKeyBits)
	}
	return rsaKey, nil
}

// key returns the verification key of the token's algorithm. Picking the key
// by algorithm (and its type by method) keeps an RS256 public key from being
// used as an HMAC secret (algorithm confusion).
func (v *jwtVerifier) key(t *jwt.Token) (any, error) {
	switch t.Method.(type) {
	case *jwt.SigningMethodHMAC:
		if t.Method.Alg() == jwt.SigningMethodHS256.Alg() && v.hmacKey != nil {
			return v.hmacKey, nil
		}
	case *jwt.SigningMethodRSA:
		if t.Method.Alg() == jwt.SigningMethodRS256.Alg() && v.rsaKey != nil {
			return v.rsaKey, nil
		}
	}
	return nil, fmt.Errorf("no key for algorithm %s", t.Method.Alg())
}

// authenticate returns the subject of the request's valid Bearer token.
func (v *jwtVerifier) authenticate(r *http.Request) (string, error) {
	raw, err := credentials(r, "Bearer", v.describe)
	if err != nil {
		return "", err
	}
	var claims jwt.RegisteredClaims
	t, err := v.parser.ParseWithClaims(raw, &claims, v.key)
	if err != nil {
		return "", v.explain(t, &claims, err)
	}
	// What the parser lets through and RFC 7519 does not (SPEC §6):
	// extensions it would have to understand, dates that are strings.
	if _, ok := t.Header["crit"]; ok {
		return "", unauthorized("token header has crit: this server understands no JWS extension, so it must refuse the token (RFC 7515 §4.1.11)")
	}
	if err := numericDates(raw); err != nil {
		return "", err
	}
	if claims.Subject == "" {
		return "", unauthorized("token has no sub claim: the subject names the user and is required")
	}
	if err := validSubject(claims.Subject); err != nil {
		return "", err
	}
	return claims.Subject, nil
}

// numericDates checks that the token's exp, nbf and iat, where present,
// are JSON numbers (RFC 7519 §2 NumericDate): the parser also takes a
// string of digits.
func numericDates(raw string) error {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return unauthorized("malformed token: not a valid JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return unauthorized("malformed token: the claims are not base64url")
	}
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(payload, &claims); err != nil {
		return unauthorized("malformed token: the claims are not a JSON object")
	}
	for _, name := range []string{"exp", "nbf", "iat"} {
		if v, ok := claims[name]; ok {
			if c := bytes.TrimSpace(v); len(c) == 0 || c[0] != '-' && (c[0] < '0' || c[0] > '9') {
				return unauthorized("token claim %s must be a number of seconds since 1970 (a NumericDate), not %s", name, jsonKind(c))
			}
		}
	}
	return nil
}

// jsonKind names the kind of a JSON value: "a string", "null", ...
func jsonKind(v []byte) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "a string"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	}
	return "null"
}

// validSubject refuses a sub that cannot name a user: "*" (which access
// rules read as everyone), one with control characters (a newline would
// forge lines of the logs that quote it) or surrounding spaces, or one of
// more than 256 bytes.
func validSubject(sub string) error {
	switch {
	case sub == "*":
		return unauthorized(`token sub "*" names no user`)
	case len(sub) > 256:
		return unauthorized("token sub is longer than 256 bytes")
	case strings.TrimSpace(sub) != sub:
		return unauthorized("token sub starts or ends with white space")
	case strings.IndexFunc(sub, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0:
		return unauthorized("token sub holds a control character or invalid UTF-8")
	}
	return nil
}

// explain turns a parse or validation error of jwt into a message saying
// what is wrong with the token. Claims are quoted only once the signature
// has been verified, and the token itself never is.
func (v *jwtVerifier) explain(t *jwt.Token, claims *jwt.RegisteredClaims, err error) error {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return unauthorized("malformed token: not a valid JWT (want header.claims.signature, each base64url-encoded JSON)")
	case t == nil:
		return unauthorized("malformed token: not a valid JWT")
	case t.Method == nil:
		if alg, ok := t.Header["alg"].(string); ok {
			return unauthorized("token signing algorithm %q is not accepted (accepted: %s)", clip(alg), strings.Join(v.methods, ", "))
		}
		return unauthorized("token has no signing algorithm (alg) in its header")
	case !slices.Contains(v.methods, t.Method.Alg()):
		return unauthorized("token signing algorithm %q is not accepted (accepted: %s)", clip(t.Method.Alg()), strings.Join(v.methods, ", "))
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return unauthorized("invalid token signature")
	case errors.Is(err, jwt.ErrTokenExpired):
		return unauthorized("token expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return unauthorized("token not valid yet (nbf is in the future)")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return unauthorized("token issued in the future (iat)")
	case claims.ExpiresAt == nil:
		return unauthorized("token has no exp claim: an expiry is required")
	case v.issuer != "" && claims.Issuer == "":
		return unauthorized("token has no iss claim: an issuer is required")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return unauthorized("token issuer %q is not accepted", clip(claims.Issuer))
	case v.audience != "" && len(claims.Audience) == 0:
		return unauthorized("token has no aud claim: an audience is required")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return unauthorized("token audience %q is not accepted", clipAll(claims.Audience))
	default:
		return unauthorized("invalid token claims")
	}
}

// clip shortens a value taken from a token before it goes into a message.
func clip(s string) string {
	const limit = 64
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

func clipAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clip(s)
	}
	return out
}
