// Test agents built on a2a-go v2 (github.com/a2aproject/a2a-go/v2): the seed's code-reviewer and
// deployer with the same behaviour as the @a2a-js/sdk ones in demo/agents/, served on loopback over
// JSON-RPC (/a2a/jsonrpc) and HTTP+JSON (/a2a/rest), the way the SDK's helloworld examples serve.
//
// Every line on stdout is one JSON object: {"event":"listening","port":N} once, then one
// {"event":"request",...} per A2A request and one {"event":"message",...} per user message that
// arrives, so the test launcher (test/agents/sdk-agents.ts) can assert on what really arrived.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

const (
	jsonrpcPath = "/a2a/jsonrpc"
	restPath    = "/a2a/rest"
)

var (
	agentName        = flag.String("agent", "code-reviewer", "code-reviewer or deployer")
	port             = flag.Int("port", 0, "loopback port (0: any free port)")
	questions        = flag.Int("questions", envInt("QUESTIONS", 1), "code-reviewer: INPUT_REQUIRED turns before the review completes")
	authLoops        = flag.Int("auth-loops", envInt("AUTH_LOOPS", 1), "deployer: AUTH_REQUIRED rounds, each needing its own approval")
	streaming        = flag.Bool("streaming", os.Getenv("STREAMING") != "false", "advertise and serve streaming")
	preferredBinding = flag.String("preferred-binding", "JSONRPC", "the interface listed first in the card: JSONRPC or HTTP+JSON")
)

func envInt(name string, def int) int {
	var v int
	if _, err := fmt.Sscan(os.Getenv(name), &v); err == nil {
		return v
	}
	return def
}

// out writes the JSON lines the launcher reads; one lock keeps lines whole.
var out = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

func emit(v map[string]any) {
	v["at"] = time.Now().UnixMilli()
	out.Lock()
	defer out.Unlock()
	_ = out.enc.Encode(v)
}

var restRoutes = []struct {
	httpMethod string
	pattern    *regexp.Regexp
	method     string
}{
	{"POST", regexp.MustCompile(`^/message:send$`), "SendMessage"},
	{"POST", regexp.MustCompile(`^/message:stream$`), "SendStreamingMessage"},
	{"GET", regexp.MustCompile(`^/tasks$`), "ListTasks"},
	{"GET", regexp.MustCompile(`^/tasks/([^/:]+)$`), "GetTask"},
	{"", regexp.MustCompile(`^/tasks/([^/:]+):subscribe$`), "SubscribeToTask"},
	{"POST", regexp.MustCompile(`^/tasks/([^/:]+):cancel$`), "CancelTask"},
}

// record logs what arrives before the SDK sees it (the helloworld REST example's loggingMiddleware, as JSON).
func record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var method, taskID string
		var parsed struct {
			Method string `json:"method"`
			Params struct {
				ID      string          `json:"id"`
				Message json.RawMessage `json:"message"`
			} `json:"params"`
			Message json.RawMessage `json:"message"`
		}
		_ = json.Unmarshal(body, &parsed)
		message := parsed.Message
		switch {
		case strings.HasPrefix(r.URL.Path, jsonrpcPath):
			method, taskID, message = parsed.Method, parsed.Params.ID, parsed.Params.Message
		case strings.HasPrefix(r.URL.Path, restPath):
			route := strings.TrimPrefix(r.URL.Path, restPath)
			for _, rr := range restRoutes {
				if m := rr.pattern.FindStringSubmatch(route); m != nil && (rr.httpMethod == "" || rr.httpMethod == r.Method) {
					method = rr.method
					if len(m) > 1 {
						taskID = m[1]
					}
					break
				}
			}
		default:
			next.ServeHTTP(w, r)
			return
		}
		var msg struct {
			MessageID string `json:"messageId"`
			TaskID    string `json:"taskId"`
			ContextID string `json:"contextId"`
			Role      string `json:"role"`
			Parts     []struct {
				Text *string `json:"text"`
			} `json:"parts"`
		}
		if len(message) > 0 && json.Unmarshal(message, &msg) == nil && msg.MessageID != "" {
			if taskID == "" {
				taskID = msg.TaskID
			}
			var texts []string
			for _, p := range msg.Parts {
				if p.Text != nil {
					texts = append(texts, *p.Text)
				}
			}
			emit(map[string]any{"event": "message", "messageId": msg.MessageID, "taskId": msg.TaskID, "contextId": msg.ContextID, "role": msg.Role, "text": strings.Join(texts, "\n")})
		}
		emit(map[string]any{"event": "request", "method": method, "taskId": taskID, "httpMethod": r.Method, "path": r.URL.Path})
		next.ServeHTTP(w, r)
	})
}

func main() {
	flag.Parse()
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatalf("listen: %v", err)
	}
	base := fmt.Sprintf("http://%s", listener.Addr().String())

	var executor a2asrv.AgentExecutor
	var approve func(a2a.TaskID) bool
	var description string
	var skill a2a.AgentSkill
	switch *agentName {
	case "code-reviewer":
		executor = newCodeReviewer(*questions)
		description = "Reviews a diff; asks which base branch to compare against before it starts."
		skill = a2a.AgentSkill{ID: "code-review", Name: "Code review", Description: "Reviews a diff and returns review.json", Tags: []string{"code-review"}, Examples: []string{"Please review this diff: +const a = 1;"}}
	case "deployer":
		d := newDeployer(base, *authLoops)
		executor, approve = d, d.approve
		description = "Deploys a build to staging after an operator approves it out of band."
		skill = a2a.AgentSkill{ID: "deploy", Name: "Deploy", Description: "Deploys a build to staging; needs operator approval", Tags: []string{"deploy"}, Examples: []string{"Deploy build 2026.10.06-1 to staging"}}
	default:
		log.Fatalf("unknown agent %q", *agentName)
	}

	jsonrpc := a2a.NewAgentInterface(base+jsonrpcPath, a2a.TransportProtocolJSONRPC)
	rest := a2a.NewAgentInterface(base+restPath, a2a.TransportProtocolHTTPJSON)
	interfaces := []*a2a.AgentInterface{jsonrpc, rest}
	if *preferredBinding == "HTTP+JSON" {
		interfaces = []*a2a.AgentInterface{rest, jsonrpc}
	}
	card := &a2a.AgentCard{
		Name:                *agentName,
		Description:         description,
		Version:             "0.1.0",
		SupportedInterfaces: interfaces,
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"application/json", "text/plain"},
		Capabilities:        a2a.AgentCapabilities{Streaming: *streaming},
		Skills:              []a2a.AgentSkill{skill},
	}

	// WithCapabilityChecks makes the handler refuse streaming calls when the card says so.
	handler := a2asrv.NewHandler(executor, a2asrv.WithCapabilityChecks(&card.Capabilities))
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle(jsonrpcPath, a2asrv.NewJSONRPCHandler(handler))
	mux.Handle(restPath+"/", http.StripPrefix(restPath, a2asrv.NewRESTHandler(handler)))
	mux.HandleFunc("POST /approve/{taskId}", func(w http.ResponseWriter, r *http.Request) {
		id := a2a.TaskID(r.PathValue("taskId"))
		w.Header().Set("Content-Type", "application/json")
		if approve == nil || !approve(id) {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"approved": false, "error": fmt.Sprintf("No approval is pending for task %s", id)})
			return
		}
		emit(map[string]any{"event": "approval", "taskId": string(id)})
		_ = json.NewEncoder(w).Encode(map[string]any{"approved": true})
	})

	emit(map[string]any{"event": "listening", "port": listener.Addr().(*net.TCPAddr).Port, "sdk": "a2a-go", "agent": *agentName})
	log.Fatal(http.Serve(listener, record(mux)))
}
