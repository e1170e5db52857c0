// connect's requestHandler (../PROTOCOL.md "Request handler"; capability rpc.requestHandler):
// CopilotClientOptions.RequestHandler, a subclass of the SDK's CopilotRequestHandler that overrides
// SendRequestAsync, its documented extension point for the HTTP exchange (CopilotRequestHandler.cs:493
// at v1.0.11; the SDK builds the HttpRequestMessage from the start and chunk frames and writes the
// acknowledgements and the response frames itself). It reports the request it is handed (its
// head under the start method: the CopilotRequestContext's own string properties, then the
// request's method, URL and headers; its body under the chunk method, base64) and answers every
// one with the given response as an HttpResponseMessage. Written against 1.0.11, not built here.

using System.Net;
using System.Reflection;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using GitHub.Copilot;
using GitHub.Copilot.Rpc;

namespace Conformance.Driver;

internal static class Requests
{
    /// <summary>Sets the client's request handler; connect's account (null when no requestHandler was given).</summary>
    public static JsonObject? Apply(CopilotClientOptions options, JsonNode? spec, string client)
    {
        if (spec is null)
        {
            return null;
        }
        if (spec is not JsonObject s || (string?)s["start"] is not { } start || (string?)s["chunk"] is not { } chunk)
        {
            throw new DriverException("'requestHandler' must be an object with the strings 'start' and 'chunk'");
        }
        options.RequestHandler = new ReportingRequestHandler(client, start, chunk, s["response"] as JsonObject ?? new JsonObject());
        return new JsonObject { ["handled"] = new JsonArray(JsonValue.Create(start), JsonValue.Create(chunk)), ["unhandled"] = new JsonObject() };
    }

    /// <summary>
    /// The schema's name of a CopilotRequestContext property: the [JsonPropertyName] of the
    /// same-named property of the generated start params the context is built from
    /// (RequestId -> requestId), else the camelCase name.
    /// </summary>
    internal static string ContextKey(string name) =>
        typeof(LlmInferenceHttpRequestStartRequest).GetProperty(name)?.GetCustomAttribute<JsonPropertyNameAttribute>()?.Name
        ?? JsonNamingPolicy.CamelCase.ConvertName(name);
}

/// <summary>The application's CopilotRequestHandler: reports each HTTP request and answers the harness's response.</summary>
internal sealed class ReportingRequestHandler(string client, string start, string chunk, JsonObject response) : CopilotRequestHandler
{
    protected override async Task<HttpResponseMessage> SendRequestAsync(HttpRequestMessage request, CopilotRequestContext ctx)
    {
        byte[] body = request.Content is null
            ? Array.Empty<byte>()
            : await request.Content.ReadAsByteArrayAsync(ctx.CancellationToken).ConfigureAwait(false);

        // The context's own string properties (RequestId, SessionId, AgentId, …) under the schema's
        // names, then the head as the HttpRequestMessage carries it (content headers included).
        var head = new JsonObject();
        foreach (PropertyInfo p in typeof(CopilotRequestContext).GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (p.PropertyType == typeof(string) && p.GetIndexParameters().Length == 0 && p.GetValue(ctx) is string value)
            {
                head[Requests.ContextKey(p.Name)] = value;
            }
        }
        var headers = new JsonObject();
        IEnumerable<KeyValuePair<string, IEnumerable<string>>> all = request.Headers;
        if (request.Content is not null)
        {
            all = all.Concat(request.Content.Headers);
        }
        foreach ((string name, IEnumerable<string> values) in all)
        {
            headers[name] = new JsonArray(values.Select(v => (JsonNode?)JsonValue.Create(v)).ToArray());
        }
        head["method"] = request.Method.Method;
        head["url"] = request.RequestUri?.ToString();
        head["headers"] = headers;
        Program.Emit("rpc.handled", new JsonObject { ["client"] = client, ["method"] = start, ["params"] = head });
        Program.Emit("rpc.handled", new JsonObject
        {
            ["client"] = client,
            ["method"] = chunk,
            ["params"] = new JsonObject { ["requestId"] = ctx.RequestId, ["data"] = Convert.ToBase64String(body), ["binary"] = true },
        });

        // The response as an application builds one; its headers go where HttpClient keeps them.
        var answer = new HttpResponseMessage((HttpStatusCode)((int?)response["status"] ?? 200))
        {
            ReasonPhrase = (string?)response["statusText"],
            Content = new ByteArrayContent(Encoding.UTF8.GetBytes((string?)response["body"] ?? "")),
            RequestMessage = request,
        };
        if (response["headers"] is JsonObject given)
        {
            foreach ((string name, JsonNode? values) in given)
            {
                string[] list = values is JsonArray a ? a.Select(v => (string?)v ?? "").ToArray() : new[] { (string?)values ?? "" };
                if (!answer.Headers.TryAddWithoutValidation(name, list))
                {
                    answer.Content.Headers.TryAddWithoutValidation(name, list);
                }
            }
        }
        return answer;
    }
}
