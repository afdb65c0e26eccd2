package main

import (
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// startPprof serves Go's runtime profiles on Config.PprofAddr, apart from
// the API so that profiles never pass through authentication, events or
// the request body limit, and are reachable only from the machine itself.
func (m *Main) startPprof() error {
	if m.Config.PprofAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", m.Config.PprofAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	m.pprof = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.Logger.Info("serving runtime profiles", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	srv := m.pprof
	go func() { _ = srv.Serve(ln) }()
	return nil
}
