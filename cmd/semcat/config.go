package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
)

// Config is semcat serve's configuration. Each field has a flag, an
// environment variable and a config-file key; flags win over the
// environment, the environment over the file (SPEC §9).
type Config struct {
	Addr          string   `yaml:"addr"`
	DataDir       string   `yaml:"data-dir"`
	DatabaseURL   string   `yaml:"database-url"`
	Demo          bool     `yaml:"demo"`
	Auth          string   `yaml:"auth"`
	Authorization bool     `yaml:"authorization"`
	ServiceAdmins []string `yaml:"service-admins"`
	AllowRemote   bool     `yaml:"allow-remote"`
	// AllowedHosts are names, beyond the loopback ones and the listen
	// address, that a request's Host may give; AllowedOrigins are the
	// origins of pages that may change state (SPEC §2.11).
	AllowedHosts   []string `yaml:"allowed-hosts"`
	AllowedOrigins []string `yaml:"allowed-origins"`
	MaxBodyBytes   int64    `yaml:"max-body-bytes"`
	// MaxConnections caps the open client connections (SPEC §2.11).
	MaxConnections int    `yaml:"max-connections"`
	LogLevel       string `yaml:"log-level"`
	// AccessLog logs one line per request (method, route, status,
	// duration, user); on by default.
	AccessLog bool `yaml:"access-log"`

	// AnonymousUser is the user of every request with --auth none.
	AnonymousUser string `yaml:"anonymous-user"`
	// JWTHS256SecretFile and JWTRS256PublicKeyFile name the files holding
	// the keys of --auth jwt: the HS256 secret (one trailing newline is
	// ignored) and the RS256 public key (PEM).
	JWTHS256SecretFile    string `yaml:"jwt-hs256-secret-file"`
	JWTRS256PublicKeyFile string `yaml:"jwt-rs256-public-key-file"`
	// JWTIssuer and JWTAudience, when set, must be a token's iss and one of
	// its aud.
	JWTIssuer   string `yaml:"jwt-issuer"`
	JWTAudience string `yaml:"jwt-audience"`

	// DefaultMetalake is the metalake MCP tools use when a call names none.
	DefaultMetalake string `yaml:"default-metalake"`
	// AuditLog is the file the audit listener appends events to; empty
	// means <data-dir>/audit.log, "-" turns it off.
	AuditLog string `yaml:"audit-log"`
	// RetentionSchedule runs the purge of dropped rows and old versions
	// (cron syntax or @every); RetentionDeletedAfter and
	// RetentionKeepVersions are its policy.
	RetentionSchedule     string        `yaml:"retention-schedule"`
	RetentionDeletedAfter time.Duration `yaml:"retention-deleted-after"`
	RetentionKeepVersions int           `yaml:"retention-keep-versions"`
	// PruneSchedule prunes outbox rows every live index consumer has
	// passed; a consumer silent for ConsumerTimeout no longer holds rows
	// back. ScrubSchedule compares ScrubSample documents with PostgreSQL.
	PruneSchedule   string        `yaml:"prune-schedule"`
	ConsumerTimeout time.Duration `yaml:"consumer-timeout"`
	ScrubSchedule   string        `yaml:"scrub-schedule"`
	ScrubSample     int           `yaml:"scrub-sample"`
	// IndexCacheSweep is how often the index's cached pages are read to
	// keep them cached; 0 turns it off.
	IndexCacheSweep time.Duration `yaml:"index-cache-sweep"`
	// IndexResidentMiB is the most MiB of mapped files (the index's
	// segments) semcat keeps in its resident memory; beyond it their
	// pages are unmapped and left to the page cache. 0: no bound.
	IndexResidentMiB int `yaml:"index-resident-mib"`
	// PprofAddr, when set, serves Go's runtime profiles (net/http/pprof)
	// on a second, loopback-only listener, for profiling a live server.
	PprofAddr string `yaml:"pprof-addr"`
}

// defaultMaxConnections is half the process's file-descriptor limit
// (the rest is for the index's files and PostgreSQL's connections), between
// 256 and 8192: a cap above what a thousand idle clients and a few hundred
// slow ones hold, where the limit allows, so that they time out one by one
// instead of churning the cap (each newcomer closing an idle one).
func defaultMaxConnections() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 1024
	}
	return int(min(max(lim.Cur/2, 256), 8192))
}

// DefaultConfig returns the embedded defaults.
func DefaultConfig() Config {
	return Config{
		Addr:           "127.0.0.1:8090",
		DataDir:        "./var",
		Auth:           "none",
		ServiceAdmins:  nil,
		MaxBodyBytes:   8 << 20,
		MaxConnections: defaultMaxConnections(),
		LogLevel:       "info",
		AccessLog:      true,
		AnonymousUser:  api.AnonymousUser,

		RetentionSchedule:     "@every 1h",
		RetentionDeletedAfter: 7 * 24 * time.Hour,
		RetentionKeepVersions: 1,
		PruneSchedule:         "@every 1m",
		ConsumerTimeout:       time.Hour,
		ScrubSchedule:         "@every 10m",
		ScrubSample:           100,
		IndexCacheSweep:       20 * time.Second,
		IndexResidentMiB:      384,
	}
}

// setting ties one configuration value to its flag, environment variable
// and file key.
type setting struct {
	name  string // flag name and file key
	env   string
	usage string
	set   func(c *Config, v string) error
}

func parseBool(name string, dst *bool) func(*Config, string) error {
	return func(_ *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", name, v)
		}
		*dst = b
		return nil
	}
}

// parseDuration parses a duration setting into dst: never negative, and
// zero only where zeroOK; want describes a valid value in the error.
func parseDuration(name, want string, zeroOK bool, dst *time.Duration) func(*Config, string) error {
	return func(_ *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d == 0 && !zeroOK {
			return fmt.Errorf("%s: want %s, got %q", name, want, v)
		}
		*dst = d
		return nil
	}
}

// parseCount parses a setting that counts something, at least 1.
func parseCount(name string, dst *int) func(*Config, string) error {
	return func(_ *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%s: want a number >= 1, got %q", name, v)
		}
		*dst = n
		return nil
	}
}

func settings(c *Config) []setting {
	return []setting{
		{"addr", "SEMCAT_ADDR", "listen address", func(c *Config, v string) error { c.Addr = v; return nil }},
		{"data-dir", "SEMCAT_DATA_DIR", "data directory (managed PostgreSQL under <dir>/pg, index under <dir>/index)", func(c *Config, v string) error { c.DataDir = v; return nil }},
		{"database-url", "SEMCAT_DATABASE_URL", "PostgreSQL connection string (also DATABASE_URL); empty: manage a local PostgreSQL", func(c *Config, v string) error { c.DatabaseURL = v; return nil }},
		{"demo", "SEMCAT_DEMO", "load the example catalog when the database is empty", parseBool("demo", &c.Demo)},
		{"auth", "SEMCAT_AUTH", "authentication mode: none, simple or jwt", func(c *Config, v string) error { c.Auth = v; return nil }},
		{"authorization", "SEMCAT_AUTHORIZATION", "enforce authorization", parseBool("authorization", &c.Authorization)},
		{"service-admins", "SEMCAT_SERVICE_ADMINS", "comma-separated users who may create metalakes", func(c *Config, v string) error {
			c.ServiceAdmins = splitList(v)
			return nil
		}},
		{"allow-remote", "SEMCAT_ALLOW_REMOTE", "with --auth none, allow listening on a non-loopback address", parseBool("allow-remote", &c.AllowRemote)},
		{"allowed-hosts", "SEMCAT_ALLOWED_HOSTS", "comma-separated host names requests may be addressed to, beyond loopback names and the listen address (* for any)", func(c *Config, v string) error {
			c.AllowedHosts = splitList(v)
			return nil
		}},
		{"allowed-origins", "SEMCAT_ALLOWED_ORIGINS", "comma-separated origins (https://ui.example.com) whose pages may change state and read answers (* for any)", func(c *Config, v string) error {
			c.AllowedOrigins = splitList(v)
			return nil
		}},
		{"max-body-bytes", "SEMCAT_MAX_BODY_BYTES", "largest accepted request body", func(c *Config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return fmt.Errorf("max-body-bytes: want a positive number of bytes, got %q", v)
			}
			c.MaxBodyBytes = n
			return nil
		}},
		{"max-connections", "SEMCAT_MAX_CONNECTIONS", "most client connections held open (default: half the file-descriptor limit, 256 to 8192); at the cap a new one closes the longest idle; one caller (user, or remote address with --auth none) holds at most a quarter", parseCount("max-connections", &c.MaxConnections)},
		{"log-level", "SEMCAT_LOG_LEVEL", "debug, info, warn or error", func(c *Config, v string) error { c.LogLevel = v; return nil }},
		{"access-log", "SEMCAT_ACCESS_LOG", "log one line per request: method, route, status, duration, user (default true; false turns it off)", parseBool("access-log", &c.AccessLog)},
		{"anonymous-user", "SEMCAT_ANONYMOUS_USER", "with --auth none, the user of every request", func(c *Config, v string) error { c.AnonymousUser = v; return nil }},
		{"jwt-hs256-secret-file", "SEMCAT_JWT_HS256_SECRET_FILE", "with --auth jwt, file holding the HS256 secret (at least 32 bytes)", func(c *Config, v string) error { c.JWTHS256SecretFile = v; return nil }},
		{"jwt-rs256-public-key-file", "SEMCAT_JWT_RS256_PUBLIC_KEY_FILE", "with --auth jwt, PEM file holding the RS256 public key or certificate", func(c *Config, v string) error { c.JWTRS256PublicKeyFile = v; return nil }},
		{"jwt-issuer", "SEMCAT_JWT_ISSUER", "with --auth jwt, the required token issuer (iss)", func(c *Config, v string) error { c.JWTIssuer = v; return nil }},
		{"jwt-audience", "SEMCAT_JWT_AUDIENCE", "with --auth jwt, the audience (aud) tokens must include", func(c *Config, v string) error { c.JWTAudience = v; return nil }},
		{"default-metalake", "SEMCAT_DEFAULT_METALAKE", "the metalake MCP tools use when a call names none", func(c *Config, v string) error { c.DefaultMetalake = v; return nil }},
		{"audit-log", "SEMCAT_AUDIT_LOG", "file the audit log of operation events is appended to (default <data-dir>/audit.log; - for none)", func(c *Config, v string) error { c.AuditLog = v; return nil }},
		{"retention-schedule", "SEMCAT_RETENTION_SCHEDULE", "when to purge dropped rows and old model versions (cron or @every)", func(c *Config, v string) error { c.RetentionSchedule = v; return nil }},
		{"retention-deleted-after", "SEMCAT_RETENTION_DELETED_AFTER", "how long dropped rows and retired metric identities are kept (e.g. 168h)", parseDuration("retention-deleted-after", "a duration such as 168h", true, &c.RetentionDeletedAfter)},
		{"prune-schedule", "SEMCAT_PRUNE_SCHEDULE", "when to prune outbox rows every live index has passed", func(c *Config, v string) error { c.PruneSchedule = v; return nil }},
		{"consumer-timeout", "SEMCAT_CONSUMER_TIMEOUT", "how long a silent index node still holds outbox rows back (e.g. 1h)", parseDuration("consumer-timeout", "a positive duration such as 1h", false, &c.ConsumerTimeout)},
		{"scrub-schedule", "SEMCAT_SCRUB_SCHEDULE", "when to check a sample of index documents against PostgreSQL", func(c *Config, v string) error { c.ScrubSchedule = v; return nil }},
		{"index-cache-sweep", "SEMCAT_INDEX_CACHE_SWEEP", "how often to read the index's cached pages so the kernel keeps them (e.g. 20s; 0: off)", parseDuration("index-cache-sweep", "a duration such as 20s, or 0", true, &c.IndexCacheSweep)},
		{"index-resident-mib", "SEMCAT_INDEX_RESIDENT_MIB", "the most MiB of the index's memory-mapped pages kept in semcat's resident memory; beyond it they are unmapped, left to the page cache (0: no bound)", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("index-resident-mib: want a number of MiB >= 0, got %q", v)
			}
			c.IndexResidentMiB = n
			return nil
		}},
		{"pprof-addr", "SEMCAT_PPROF_ADDR", "serve Go runtime profiles (/debug/pprof/) on this loopback address; empty: off", func(c *Config, v string) error { c.PprofAddr = v; return nil }},
		{"scrub-sample", "SEMCAT_SCRUB_SAMPLE", "how many entities of each kind a scrub checks", parseCount("scrub-sample", &c.ScrubSample)},
		{"retention-keep-versions", "SEMCAT_RETENTION_KEEP_VERSIONS", "how many newest version snapshots of each model are kept (at least 1)", parseCount("retention-keep-versions", &c.RetentionKeepVersions)},
	}
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// LoadConfig builds the configuration from defaults, the config file (from
// --config or SEMCAT_CONFIG), the environment and the flags in args.
func LoadConfig(args []string, getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	configPath := fs.String("config", "", "YAML config file (also SEMCAT_CONFIG)")
	boolFlags := map[string]bool{"demo": true, "authorization": true, "allow-remote": true, "access-log": true}
	for _, s := range settings(&c) {
		if boolFlags[s.name] {
			fs.Bool(s.name, false, s.usage+" (env "+s.env+")")
		} else {
			fs.String(s.name, "", s.usage+" (env "+s.env+")")
		}
	}
	// A mistake is reported as one line (serveFlagError), not followed by
	// every flag; --help prints them.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stderr)
			fmt.Fprintln(os.Stderr, "usage: semcat serve [flags]")
			fs.PrintDefaults()
			return c, err
		}
		return c, serveFlagError(fs, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	path := *configPath
	if path == "" {
		path = getenv("SEMCAT_CONFIG")
	}
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("config: %w", err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil && err.Error() != "EOF" {
			return c, fmt.Errorf("config %s: %w", path, err)
		}
	}
	for _, s := range settings(&c) {
		v := getenv(s.env)
		if s.name == "database-url" && v == "" {
			v = getenv("DATABASE_URL")
		}
		if v != "" {
			if err := s.set(&c, v); err != nil {
				return c, fmt.Errorf("%s: %w", s.env, err)
			}
		}
	}
	var ferr error
	fs.Visit(func(f *flag.Flag) {
		for _, s := range settings(&c) {
			if s.name == f.Name && ferr == nil {
				if err := s.set(&c, f.Value.String()); err != nil {
					// The setting's message starts with its name.
					ferr = usagef("--%s", err)
				}
			}
		}
	})
	if ferr != nil {
		return c, ferr
	}
	return c, c.Validate()
}

// Validate checks the configuration as a whole.
func (c Config) Validate() error {
	switch c.Auth {
	case "none", "simple", "jwt":
	default:
		return fmt.Errorf("auth: unknown mode %q (want none, simple or jwt)", c.Auth)
	}
	if c.Auth == "jwt" && c.JWTHS256SecretFile == "" && c.JWTRS256PublicKeyFile == "" {
		return errors.New("auth: mode jwt needs a key: set jwt-hs256-secret-file or jwt-rs256-public-key-file (or both)")
	}
	if err := semcat.ValidateName("anonymous-user", c.AnonymousUser); err != nil {
		return errors.New(semcat.ErrorMessage(err))
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("addr: %w", err)
	}
	if c.Auth == "none" && !c.AllowRemote && !isLoopback(host) {
		return fmt.Errorf("addr: with --auth none semcat listens only on loopback (got %s); use --allow-remote to override", c.Addr)
	}
	if c.PprofAddr != "" {
		// Profiles expose memory contents and cost CPU: never off the machine.
		host, _, err := net.SplitHostPort(c.PprofAddr)
		if err != nil {
			return fmt.Errorf("pprof-addr: %w", err)
		}
		if !isLoopback(host) {
			return fmt.Errorf("pprof-addr: must be a loopback address, got %s", c.PprofAddr)
		}
	}
	return nil
}

// AuthConfig returns the authentication configuration for
// api.NewAuthenticator, reading the key files of mode jwt. Errors name the
// setting at fault.
func (c Config) AuthConfig() (api.AuthConfig, error) {
	ac := api.AuthConfig{
		Mode:          c.Auth,
		AnonymousUser: c.AnonymousUser,
		JWT:           api.JWTConfig{Issuer: c.JWTIssuer, Audience: c.JWTAudience},
	}
	if c.Auth != "jwt" {
		return ac, nil
	}
	if c.JWTHS256SecretFile != "" {
		b, err := os.ReadFile(c.JWTHS256SecretFile)
		if err != nil {
			return ac, fmt.Errorf("jwt-hs256-secret-file: %w", err)
		}
		// Files written with echo or an editor end in a newline that is no
		// part of the secret.
		b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
		if len(b) == 0 {
			return ac, fmt.Errorf("jwt-hs256-secret-file: %s is empty", c.JWTHS256SecretFile)
		}
		ac.JWT.HS256Secret = b
		if _, err := api.NewAuthenticator(api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{HS256Secret: b}}); err != nil {
			return ac, fmt.Errorf("jwt-hs256-secret-file %s: %w", c.JWTHS256SecretFile, err)
		}
	}
	if c.JWTRS256PublicKeyFile != "" {
		b, err := os.ReadFile(c.JWTRS256PublicKeyFile)
		if err != nil {
			return ac, fmt.Errorf("jwt-rs256-public-key-file: %w", err)
		}
		ac.JWT.RS256PublicKey = b
		if _, err := api.NewAuthenticator(api.AuthConfig{Mode: "jwt", JWT: api.JWTConfig{RS256PublicKey: b}}); err != nil {
			return ac, fmt.Errorf("jwt-rs256-public-key-file %s: %w", c.JWTRS256PublicKeyFile, err)
		}
	}
	return ac, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
