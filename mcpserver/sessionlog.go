package mcpserver

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat"
)

// An MCP session is logged once, when the client opens it: which
// client, which protocol version, as which user. The SDK's own lines
// ("server connecting", "session connected", "session disconnected") come
// once per HTTP request of a stateless server, with no session id, so it is
// given a logger that passes only its warnings and errors (sdkLogger).

// sdkLogger is logger for the MCP SDK: its warnings and errors only.
func sdkLogger(logger *slog.Logger) *slog.Logger {
	return slog.New(minLevel{Handler: logger.Handler(), min: slog.LevelWarn})
}

// minLevel is a handler that drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}

// sessionLog returns a receiving middleware that logs "mcp session" once
// per session, when the client opens it: at its initialize request, or at
// server/discover for clients of the stateless protocol (2026-07-28), which
// has no initialize.
func sessionLog(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "initialize" && method != "server/discover" {
				return next(ctx, method, req)
			}
			res, err := next(ctx, method, req)
			attrs := []slog.Attr{slog.String("user", semcat.UserFromContext(ctx))}
			p, _ := req.GetParams().(*mcp.InitializeParams)
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && p == nil {
				p = ss.InitializeParams()
			}
			if p != nil {
				attrs = append(attrs, slog.String("protocol", p.ProtocolVersion))
				if p.ClientInfo != nil {
					attrs = append(attrs, slog.String("client", p.ClientInfo.Name), slog.String("client_version", p.ClientInfo.Version))
				}
			}
			if id := req.GetSession().ID(); id != "" {
				attrs = append(attrs, slog.String("session", id))
			}
			logger.LogAttrs(ctx, slog.LevelInfo, "mcp session", attrs...)
			return res, err
		}
	}
}
