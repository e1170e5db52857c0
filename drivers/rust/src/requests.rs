//! connect's `requestHandler` (../PROTOCOL.md "Request handler", capability `rpc.requestHandler`):
//! the application serves the runtime's model requests itself through
//! `ClientOptions::with_request_handler`. The crate reassembles each `llmInference` exchange (it
//! acknowledges the start and chunk frames itself) into one `CopilotHttpRequest` plus a
//! `CopilotRequestContext`, and streams the `CopilotHttpResponse` the handler returns back as
//! response start and chunk requests. The driver's handler reports what it was handed and answers
//! every request with the response the harness chose. Built when build.rs finds that API in the
//! crate (cfg `sdk_request_handler`).

#![cfg_attr(not(sdk_request_handler), allow(dead_code))]

/// The crate item the capability needs (hello's `missing` when the crate lacks it).
pub const API: &str = "ClientOptions::with_request_handler";

#[cfg(sdk_request_handler)]
mod imp {
    // Not a held kind (the request-handler exchange is not a runtime-to-SDK method): the
    // report goes out at once, not through the async, holdable `report`.
    use crate::handlers::report_now as report;
    use async_trait::async_trait;
    use base64::Engine;
    use github_copilot_sdk::copilot_request_handler::{
        CopilotHttpRequest, CopilotHttpResponse, CopilotRequestContext, CopilotRequestError,
        CopilotRequestHandler, CopilotWebSocketHandler, CopilotWebSocketResponse,
    };
    use github_copilot_sdk::ClientOptions;
    use http::header::{HeaderMap, HeaderName, HeaderValue};
    use serde_json::{json, Map, Value};

    include!(concat!(env!("OUT_DIR"), "/request_gen.rs"));

    /// Reports every HTTP request it is handed (`rpc.handled`, client-level) and answers it with
    /// the harness's response.
    struct Reporting {
        client: String,
        start: String,
        chunk: String,
        status: u16,
        status_text: Option<String>,
        headers: HeaderMap,
        body: String,
    }

    #[async_trait]
    impl CopilotRequestHandler for Reporting {
        async fn send_request(
            &self,
            request: CopilotHttpRequest,
            ctx: &CopilotRequestContext,
        ) -> Result<CopilotHttpResponse, CopilotRequestError> {
            // The head as the application sees it: the context's own fields, then the method,
            // URL and headers of the request object.
            let mut head = context_head(ctx);
            let mut headers: Map<String, Value> = Map::new();
            for (name, value) in &request.headers {
                let values = headers
                    .entry(name.as_str().to_string())
                    .or_insert_with(|| json!([]));
                if let Value::Array(values) = values {
                    values.push(json!(String::from_utf8_lossy(value.as_bytes())));
                }
            }
            head.insert("method".into(), json!(request.method));
            head.insert("url".into(), json!(request.url));
            head.insert("headers".into(), Value::Object(headers));
            report(None, Some(&self.client), &self.start, Value::Object(head), Vec::new());
            report(
                None,
                Some(&self.client),
                &self.chunk,
                json!({
                    "requestId": ctx.request_id,
                    "data": base64::engine::general_purpose::STANDARD.encode(&request.body),
                    "binary": true,
                }),
                Vec::new(),
            );
            let body = bytes::Bytes::from(self.body.clone().into_bytes());
            Ok(CopilotHttpResponse::new(
                self.status,
                self.status_text.clone(),
                self.headers.clone(),
                Box::pin(futures_util::stream::once(async move { Ok(body) })),
            ))
        }

        /// Websocket exchanges are a message channel, not one request and response; the harness
        /// does not play them, and this build has no upstream to forward them to.
        async fn open_websocket(
            &self,
            _ctx: &CopilotRequestContext,
            _response: CopilotWebSocketResponse,
        ) -> Result<Box<dyn CopilotWebSocketHandler>, CopilotRequestError> {
            Err(CopilotRequestError::message(
                "the conformance driver's request handler serves HTTP requests only",
            ))
        }
    }

    /// Registers the reporting handler described by connect's `requestHandler`; returns the
    /// methods it serves.
    pub fn for_client(
        options: ClientOptions,
        spec: &Map<String, Value>,
        client: &str,
    ) -> Result<(ClientOptions, Vec<String>), String> {
        let text = |key: &str| {
            spec.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("requestHandler.{key} must be a string"))
        };
        let (start, chunk) = (text("start")?, text("chunk")?);
        let response = spec
            .get("response")
            .and_then(Value::as_object)
            .ok_or("requestHandler.response must be an object")?;
        let status = response
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .ok_or("requestHandler.response.status must be an HTTP status")?;
        let mut headers = HeaderMap::new();
        for (name, values) in response
            .get("headers")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| format!("response header name {name:?}: {e}"))?;
            for value in values.as_array().into_iter().flatten() {
                let value = value.as_str().unwrap_or_default();
                let value = HeaderValue::from_str(value)
                    .map_err(|e| format!("response header value {value:?}: {e}"))?;
                headers.append(name.clone(), value);
            }
        }
        let handler = Reporting {
            client: client.to_string(),
            start: start.clone(),
            chunk: chunk.clone(),
            status,
            status_text: response
                .get("statusText")
                .and_then(Value::as_str)
                .map(str::to_string),
            headers,
            body: response
                .get("body")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        };
        Ok((options.with_request_handler(handler), vec![start, chunk]))
    }
}

#[cfg(sdk_request_handler)]
pub use imp::for_client;
