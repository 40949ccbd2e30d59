//! What an endpoint answered, as a user reads it: each kind of answer is one row of
//! [`TABLE`], which says whether the call is tried again (within the retry budget, once,
//! or never), the exit code of a run it ends and what its last line tells the user to
//! change. `docs/reliability.md` holds the same table, rendered by [`markdown`] (a test
//! compares the two).
//!
//! The rule: what may pass by itself (a rate limit, a busy or restarting server, a
//! timeout, a dropped connection, an answer cut off mid-way) is retried within the
//! budget; what the same request will meet again (a refused key, an unknown model, a URL
//! that does not speak the OpenAI API) stops the run at once with one line that says
//! what the endpoint answered and what to change; a server error whose body is a web
//! page is tried once more before it is read as the wrong URL.

/// One kind of answer (or of no answer) from an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 429 (or 408: the server asks to come back later).
    RateLimited,
    /// 500 or another 5xx but 501, with a JSON body or none.
    ServerError,
    /// 502, 503 or 504 with a body that is not JSON (a proxy's page, a starting server).
    Gateway,
    /// 500 or another 5xx but 501-504, with an HTML body or text that is not JSON.
    ServerPage,
    /// 501.
    NotImplemented,
    /// 400.
    BadRequest,
    /// 401.
    Unauthorized,
    /// 403.
    Forbidden,
    /// 404 from a base URL whose path has no `/v1`.
    NoV1,
    /// 404 whose body names a model, from a base URL with `/v1`: an unknown model.
    UnknownModel,
    /// Another 404 from a base URL with `/v1` (a web page, "Invalid URL").
    NotFoundPage,
    /// 405.
    MethodNotAllowed,
    /// A 3xx: a redirect, which is not followed (a POST is not sent on to another URL,
    /// nor the API key to another host).
    Redirect,
    /// Another 4xx (or a 1xx).
    ClientError,
    /// A 2xx whose body is an HTML page.
    HtmlAnswer,
    /// A 2xx whose body is text that is not JSON at all (nor server-sent events).
    TextAnswer,
    /// A 2xx whose body is empty or JSON that stops before its end.
    CutAnswer,
    /// No answer within the try's time limit, or the server stopped sending mid-answer.
    TimedOut,
    /// The connection was reset or closed before the answer was whole.
    Dropped,
    /// The connection was refused by an endpoint that never answered in this run.
    Refused,
}

/// How often a kind of answer is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retried {
    /// With backoff until the retry budget is spent.
    WithinBudget,
    /// Once; met again, it ends the run.
    Once,
    /// Never: it ends the run at once.
    Never,
}

impl Retried {
    /// The table's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Retried::WithinBudget => "within the budget",
            Retried::Once => "once",
            Retried::Never => "no",
        }
    }
}

/// One row of the table: a kind, what the endpoint answered in a user's words, whether
/// it is retried, the exit code of a run it ends, and what the last line says.
pub struct Row {
    /// The kind.
    pub kind: Kind,
    /// What the endpoint answered.
    pub answered: &'static str,
    /// How often it is tried again.
    pub retried: Retried,
    /// The exit code of a run it ends (1: it may pass; 2: the user must change something).
    pub exit: u8,
    /// What the run's last line names besides the answer.
    pub says: &'static str,
}

/// The rule, one row a kind (`docs/reliability.md` shows it as it is here).
pub static TABLE: &[Row] = &[
    Row {
        kind: Kind::RateLimited,
        answered: "429 or 408 (any body)",
        retried: Retried::WithinBudget,
        exit: 1,
        says: "the endpoint's message; `Retry-After` honoured; raise `--retry-budget`",
    },
    Row {
        kind: Kind::ServerError,
        answered: "500 or another 5xx but 501, with a JSON body or none",
        retried: Retried::WithinBudget,
        exit: 1,
        says: "the endpoint's message; raise `--retry-budget`",
    },
    Row {
        kind: Kind::Gateway,
        answered: "502, 503 or 504 with a body that is not JSON (a proxy's page, a server starting)",
        retried: Retried::WithinBudget,
        exit: 1,
        says: "the head of the body; raise `--retry-budget`",
    },
    Row {
        kind: Kind::ServerPage,
        answered: "500 or another 5xx but 501-504, with an HTML page or text that is not JSON",
        retried: Retried::Once,
        exit: 2,
        says: "this URL does not speak the OpenAI API (HTML) or the text; `--base-url`",
    },
    Row {
        kind: Kind::NotImplemented,
        answered: "501",
        retried: Retried::Never,
        exit: 2,
        says: "this URL does not speak the OpenAI API; `--base-url`, `/v1` if its path lacks it",
    },
    Row {
        kind: Kind::BadRequest,
        answered: "400",
        retried: Retried::Never,
        exit: 1,
        says: "the endpoint's message; `--json-mode` when it is about the response format (a prompt longer than the context is a failed call, not the end)",
    },
    Row {
        kind: Kind::Unauthorized,
        answered: "401",
        retried: Retried::Never,
        exit: 2,
        says: "the key: `OPENAI_API_KEY` (`ARIADNE_EMBED_API_KEY` for embeddings)",
    },
    Row {
        kind: Kind::Forbidden,
        answered: "403",
        retried: Retried::Never,
        exit: 2,
        says: "the key's rights to the model: `OPENAI_API_KEY`, `--model` / `ARIADNE_MODEL`",
    },
    Row {
        kind: Kind::NoV1,
        answered: "404 from a base URL whose path has no `/v1`",
        retried: Retried::Never,
        exit: 2,
        says: "the base URL with `/v1` added",
    },
    Row {
        kind: Kind::UnknownModel,
        answered: "404 whose body names a model",
        retried: Retried::Never,
        exit: 2,
        says: "the model: `--model` / `ARIADNE_MODEL` (`--embed-model` / `ARIADNE_EMBED_MODEL`)",
    },
    Row {
        kind: Kind::NotFoundPage,
        answered: "another 404 (a web page, \"Invalid URL\")",
        retried: Retried::Never,
        exit: 2,
        says: "this URL does not speak the OpenAI API; `--base-url`",
    },
    Row {
        kind: Kind::MethodNotAllowed,
        answered: "405",
        retried: Retried::Never,
        exit: 2,
        says: "this URL does not speak the OpenAI API; `--base-url`, `/v1` if its path lacks it",
    },
    Row {
        kind: Kind::Redirect,
        answered: "3xx (a redirect: not followed)",
        retried: Retried::Never,
        exit: 2,
        says: "the URL it points to (`Location`); `--base-url`",
    },
    Row {
        kind: Kind::ClientError,
        answered: "another 4xx, or a 1xx",
        retried: Retried::Never,
        exit: 1,
        says: "the endpoint's message",
    },
    Row {
        kind: Kind::HtmlAnswer,
        answered: "2xx with an HTML page",
        retried: Retried::Never,
        exit: 2,
        says: "this URL does not speak the OpenAI API; `--base-url`",
    },
    Row {
        kind: Kind::TextAnswer,
        answered: "2xx with text that is neither JSON nor server-sent events",
        retried: Retried::Never,
        exit: 2,
        says: "this URL does not speak the OpenAI API; the head of the text",
    },
    Row {
        kind: Kind::CutAnswer,
        answered: "2xx with an empty body or JSON that stops before its end",
        retried: Retried::WithinBudget,
        exit: 1,
        says: "the answer was cut off; raise `--retry-budget`",
    },
    Row {
        kind: Kind::TimedOut,
        answered: "no answer within the try's time limit, or no more bytes mid-answer",
        retried: Retried::WithinBudget,
        exit: 1,
        says: "the time limit it hit (`--llm-timeout`, half the retry budget unless given)",
    },
    Row {
        kind: Kind::Dropped,
        answered: "a connection reset or closed before the answer was whole",
        retried: Retried::WithinBudget,
        exit: 1,
        says: "the cause; raise `--retry-budget`",
    },
    Row {
        kind: Kind::Refused,
        answered: "a refused connection, the endpoint never having answered",
        retried: Retried::Never,
        exit: 2,
        says: "cannot reach; `--base-url` / `OPENAI_BASE_URL`",
    },
];

impl Kind {
    /// Its row of [`TABLE`].
    pub fn row(self) -> &'static Row {
        TABLE.iter().find(|r| r.kind == self).unwrap_or(&TABLE[0])
    }

    /// How often it is tried again.
    pub fn retried(self) -> Retried {
        self.row().retried
    }

    /// True when a run it ends is the user's to fix (exit code 2).
    pub fn is_user_error(self) -> bool {
        self.row().exit == 2
    }

    /// The kind of a non-2xx answer of `status` with `body`, from the endpoint at `base`.
    pub fn of_status(status: u16, body: &[u8], base: &str) -> Kind {
        let shape = Shape::of(body);
        let json = matches!(shape, Shape::Json | Shape::Empty);
        match status {
            408 | 429 => Kind::RateLimited,
            501 => Kind::NotImplemented,
            502..=504 if !json => Kind::Gateway,
            500..=599 if json => Kind::ServerError,
            500..=599 => Kind::ServerPage,
            400 => Kind::BadRequest,
            401 => Kind::Unauthorized,
            403 => Kind::Forbidden,
            404 if !has_v1(base) => Kind::NoV1,
            404 if names_a_model(body) => Kind::UnknownModel,
            404 => Kind::NotFoundPage,
            405 => Kind::MethodNotAllowed,
            300..=399 => Kind::Redirect,
            _ => Kind::ClientError,
        }
    }

    /// The kind of a 2xx body that is no answer to judge (an HTML page, text that is not
    /// JSON, a body cut off), or `None` for one to judge (JSON, JSON-like text that does
    /// not parse, server-sent events).
    pub fn of_success(body: &[u8]) -> Option<Kind> {
        match Shape::of(body) {
            Shape::Html => Some(Kind::HtmlAnswer),
            Shape::Text => Some(Kind::TextAnswer),
            Shape::Empty | Shape::Cut => Some(Kind::CutAnswer),
            Shape::Json | Shape::Events => None,
        }
    }

    /// What to change, for a run this kind ends (`what`: "chat" or "embedding"; `base`:
    /// the base URL); empty for the kinds that may pass by themselves.
    pub fn fix(self, what: &str, base: &str) -> String {
        let chat = what == "chat";
        let url_setting = if chat {
            "--base-url / OPENAI_BASE_URL"
        } else {
            "--embed-base-url / ARIADNE_EMBED_BASE_URL"
        };
        let not_openai = format!("this URL does not speak the OpenAI API: check {url_setting}");
        let v1 = if has_v1(base) {
            String::new()
        } else {
            format!(" (an OpenAI-compatible base URL usually ends in /v1: {base}/v1?)")
        };
        match self {
            Kind::Unauthorized if chat => "the API key was refused: set OPENAI_API_KEY to a key this endpoint accepts".into(),
            Kind::Unauthorized => "the API key was refused: set ARIADNE_EMBED_API_KEY (or OPENAI_API_KEY) to a key this endpoint accepts".into(),
            Kind::Forbidden if chat => "the API key may not use this model: check OPENAI_API_KEY, or choose another model with --model / ARIADNE_MODEL".into(),
            Kind::Forbidden => "the API key may not use this model: check ARIADNE_EMBED_API_KEY (or OPENAI_API_KEY), or choose another model with --embed-model / ARIADNE_EMBED_MODEL".into(),
            Kind::UnknownModel if chat => "the model is unknown there: choose one it serves with --model / ARIADNE_MODEL".into(),
            Kind::UnknownModel => "the model is unknown there: choose one it serves with --embed-model / ARIADNE_EMBED_MODEL".into(),
            Kind::NoV1 => format!("the base URL's path has no /v1: try {base}/v1 ({url_setting})"),
            Kind::Redirect => format!("Ariadne does not follow redirects: give the URL it points to as the base URL ({url_setting})"),
            Kind::NotImplemented
            | Kind::MethodNotAllowed
            | Kind::ServerPage
            | Kind::NotFoundPage
            | Kind::HtmlAnswer
            | Kind::TextAnswer => format!("{not_openai}{v1}"),
            _ => String::new(),
        }
    }
}

/// What a body looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Nothing but white space.
    Empty,
    /// JSON, or JSON-like text (it opens with `{` or `[`) that fails to parse before its
    /// end.
    Json,
    /// JSON-like text that stops before its value is whole.
    Cut,
    /// An HTML (or XML) page.
    Html,
    /// Server-sent events (`data:` lines).
    Events,
    /// Other text.
    Text,
}

impl Shape {
    /// The shape of `body`.
    pub fn of(body: &[u8]) -> Shape {
        let text = String::from_utf8_lossy(body);
        let t = text.trim_start();
        if t.is_empty() {
            Shape::Empty
        } else if t.starts_with('<') {
            Shape::Html
        } else if t.starts_with("data:") || t.starts_with("event:") || t.starts_with(':') {
            Shape::Events
        } else if t.starts_with('{') || t.starts_with('[') {
            match serde_json::from_str::<serde::de::IgnoredAny>(&text) {
                Err(e) if e.is_eof() => Shape::Cut,
                _ => Shape::Json,
            }
        } else {
            Shape::Text
        }
    }
}

/// True when a body names a model (`The model 'x' does not exist`, Ollama's `model "x"
/// not found`): a 404 that says so is an unknown model, not a wrong URL.
fn names_a_model(body: &[u8]) -> bool {
    Shape::of(body) != Shape::Html
        && String::from_utf8_lossy(body)
            .to_lowercase()
            .contains("model")
}

/// True when the path of `base` has a `/v1` (also `/v1beta`, as some providers name it).
pub fn has_v1(base: &str) -> bool {
    let path = base
        .split_once("://")
        .map_or(base, |(_, rest)| rest)
        .split_once('/')
        .map_or("", |(_, path)| path);
    format!("/{path}").contains("/v1")
}

/// The title of an HTML page, when it has one (at most 80 characters).
pub fn html_title(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let start = lower.find("<title>")? + "<title>".len();
    let end = start + lower[start..].find("</title>")?;
    let title = crate::report::one_line(text.get(start..end)?);
    (!title.is_empty()).then(|| crate::text::first_chars(&title, 80))
}

/// [`TABLE`] as a Markdown table, as `docs/reliability.md` holds it.
pub fn markdown() -> String {
    let mut out = String::from(
        "| the endpoint answered | tried again | exit | the last line names |\n|---|---|---|---|\n",
    );
    for r in TABLE {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.answered,
            r.retried.word(),
            r.exit,
            r.says
        ));
    }
    out
}

#[cfg(test)]
mod tests;
