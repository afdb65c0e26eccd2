package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// reindex asks a running server to rebuild its search index into a new
// directory and swap it in atomically; search keeps serving meanwhile.
func reindex(args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	server := fs.String("server", "", "base URL of the server (default http://<SEMCAT_ADDR or 127.0.0.1:8090>)")
	user := fs.String("user", "", "user name for --auth simple")
	token := fs.String("token", "", "bearer token for --auth jwt (or SEMCAT_TOKEN)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	base := *server
	if base == "" {
		addr := getenv("SEMCAT_ADDR")
		if addr == "" {
			addr = DefaultConfig().Addr
		}
		base = "http://" + addr
	}
	if *token == "" {
		*token = getenv("SEMCAT_TOKEN")
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(base, "/")+"/api/admin/reindex", nil)
	if err != nil {
		return err
	}
	if *user != "" {
		req.SetBasicAuth(*user, "")
	}
	if *token != "" {
		req.Header.Set("Authorization", "Bearer "+*token)
	}
	fmt.Fprintf(stdout, "rebuilding the search index of %s ...\n", base)
	client := &http.Client{Timeout: time.Hour}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Code    int    `json:"code"`
		TookMs  int64  `json:"tookMs"`
		Message string `json:"message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("reindex: %s: %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("reindex: %s: %s", resp.Status, body.Message)
	}
	fmt.Fprintf(stdout, "done in %s\n", time.Duration(body.TookMs)*time.Millisecond)
	return nil
}
