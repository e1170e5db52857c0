//go:build !copilot_sdk_no_request_handler

package main

// connect's requestHandler (PROTOCOL.md "Request handler"): ClientOptions.RequestHandler, a
// copilot.CopilotRequestHandler whose Transport is the application's http.RoundTripper. The
// RoundTripper reports the HTTP request it is handed (its head under the start method: the
// CopilotRequestContext's own string fields, read by reflection, and the request's method, URL
// and headers; its body under the chunk method, base64) and answers every one with the given
// response as an *http.Response. The file builds against SDK versions that declare that API (the
// recipe sets copilot_sdk_no_request_handler otherwise; requests_none.go).

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode"

	copilot "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"
)

// hasRequestHandler: capability rpc.requestHandler.
const hasRequestHandler = true

// requestHandlerSpec is connect's "requestHandler" argument.
type requestHandlerSpec struct {
	Start    string `json:"start"`
	Chunk    string `json:"chunk"`
	Response struct {
		Status     int                 `json:"status"`
		StatusText string              `json:"statusText"`
		Headers    map[string][]string `json:"headers"`
		Body       string              `json:"body"`
	} `json:"response"`
}

// serveRequests sets the client's request handler and answers connect's account.
func serveRequests(opts *copilot.ClientOptions, spec *requestHandlerSpec, client string) (map[string]any, error) {
	opts.RequestHandler = &copilot.CopilotRequestHandler{Transport: &reportingTransport{spec: spec, client: client}}
	return map[string]any{"handled": []string{spec.Start, spec.Chunk}, "unhandled": map[string]string{}}, nil
}

type reportingTransport struct {
	spec   *requestHandlerSpec
	client string
}

func (t *reportingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("driver: reading the request body: %w", err)
		}
		body = b
	}
	// The context's own string fields (RequestID, SessionID, AgentID, …) under the schema's
	// names, then the head as the *http.Request carries it.
	head := map[string]any{}
	requestID := ""
	if rctx := copilot.RequestContextFrom(req); rctx != nil {
		v := reflect.ValueOf(rctx).Elem()
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() && f.Type.Kind() == reflect.String {
				head[contextKey(f.Name)] = v.Field(i).String()
			}
		}
		requestID = rctx.RequestID
	}
	headers := map[string][]string{}
	for k, vs := range req.Header {
		headers[k] = append([]string{}, vs...)
	}
	head["method"] = req.Method
	head["url"] = req.URL.String()
	head["headers"] = headers
	event("rpc.handled", map[string]any{"client": t.client, "method": t.spec.Start, "params": head})
	event("rpc.handled", map[string]any{"client": t.client, "method": t.spec.Chunk,
		"params": map[string]any{"requestId": requestID, "data": base64.StdEncoding.EncodeToString(body), "binary": true}})

	r := t.spec.Response
	h := http.Header{}
	for k, vs := range r.Headers {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	status := fmt.Sprint(r.Status)
	if r.StatusText != "" {
		status += " " + r.StatusText
	}
	return &http.Response{
		Status: status, StatusCode: r.Status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(strings.NewReader(r.Body)), ContentLength: int64(len(r.Body)), Request: req,
	}, nil
}

// startParams is the generated params type of the start frame the context is built from.
var startParams = reflect.TypeOf(rpc.LlmInferenceHTTPRequestStartRequest{})

// contextKey is the schema's name for a CopilotRequestContext field: the json name of the
// same-named field of the generated start params (RequestID -> requestId), else the Go name
// with its leading capitals lowered and a trailing ID written Id.
func contextKey(goName string) string {
	if f, ok := startParams.FieldByName(goName); ok {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			return name
		}
	}
	name := goName
	if strings.HasSuffix(name, "ID") {
		name = strings.TrimSuffix(name, "ID") + "Id"
	}
	r := []rune(name)
	for i := 0; i < len(r) && unicode.IsUpper(r[i]); i++ {
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break // the next word's capital (URLPath -> urlPath)
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}
