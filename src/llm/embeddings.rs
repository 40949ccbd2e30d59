//! Reading an embeddings response strictly ([`read_embeddings`]): every item indexed
//! once, every embedding one flat array of finite numbers, not all zero, of one
//! dimension; the vectors scaled to unit length in input order.

use serde_json::Value;

use super::http::Body;

/// Read and check an embeddings response for `n` inputs: a `data` array of exactly `n`
/// items, each with an `index` (all of `0..n` once, in any order; a list without any
/// index is taken in order) and an `embedding` that is one flat array of finite numbers,
/// not all zero, of the same dimension as every other, and as `dimension` when given.
/// Returns the unit-length vectors in input order.
///
/// # Errors
/// A one-line description of the first thing wrong.
pub fn read_embeddings(
    body: &Body,
    n: usize,
    dimension: Option<usize>,
) -> Result<Vec<Vec<f32>>, String> {
    let v = response(body)?;
    let data = v["data"].as_array().ok_or_else(|| {
        format!(
            "no data array in {}",
            crate::text::first_chars(&v.to_string(), 200)
        )
    })?;
    if data.len() != n {
        return Err(format!("asked for {n} embeddings, got {}", data.len()));
    }
    let indexed = data.iter().any(|d| d.get("index").is_some());
    let mut out: Vec<Option<Vec<f32>>> = vec![None; n];
    let mut dim = dimension;
    for (pos, item) in data.iter().enumerate() {
        let index = if indexed {
            index_of(item, pos, n)?
        } else {
            pos
        };
        if out[index].is_some() {
            return Err(format!("index {index} appears twice"));
        }
        let mut vector = vector_of(item, index)?;
        match dim {
            Some(d) if d != vector.len() => {
                return Err(format!(
                    "the embedding of index {index} has dimension {}, but this run's embeddings have dimension {d}",
                    vector.len()
                ));
            }
            _ => dim = Some(vector.len()),
        }
        normalize(&mut vector);
        out[index] = Some(vector);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, v)| v.ok_or_else(|| format!("no embedding for index {i}")))
        .collect()
}

/// The response body as JSON.
///
/// # Errors
/// The body is not UTF-8, or not JSON (its first 200 characters quoted).
fn response(body: &Body) -> Result<Value, String> {
    if body.replaced > 0 {
        return Err(format!(
            "the response is not UTF-8 ({} invalid sequences)",
            body.replaced
        ));
    }
    let text = &body.text;
    serde_json::from_str(text).map_err(|e| {
        format!(
            "the response is not JSON ({e}): {:?}",
            crate::text::first_chars(text, 200)
        )
    })
}

/// The `index` of the item at position `pos` of `n`, in `0..n`.
///
/// # Errors
/// No integer index, or one outside `0..n`.
fn index_of(item: &Value, pos: usize, n: usize) -> Result<usize, String> {
    let i = item["index"]
        .as_u64()
        .ok_or_else(|| format!("item {pos} has no integer index ({})", item["index"]))?;
    usize::try_from(i)
        .ok()
        .filter(|&i| i < n)
        .ok_or_else(|| format!("item {pos} has index {i}, outside 0..{n}"))
}

/// The `embedding` of the item of `index`, scaled by its largest magnitude (not yet to
/// unit length).
///
/// # Errors
/// Not an array of finite numbers, or empty, or all zero.
fn vector_of(item: &Value, index: usize) -> Result<Vec<f32>, String> {
    let values = item["embedding"].as_array().ok_or_else(|| {
        format!(
            "the embedding of index {index} is not an array of numbers: {}",
            item["embedding"]
                .to_string()
                .chars()
                .take(80)
                .collect::<String>()
        )
    })?;
    // Read in f64 and scaled by the largest magnitude before the cast to f32, so any
    // finite JSON number (1e40 overflows f32) keeps its direction.
    let wide = wide_values(values, index)?;
    let largest = wide.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let scale = if largest > 0.0 { largest } else { 1.0 };
    let vector: Vec<f32> = wide.iter().map(|x| (x / scale) as f32).collect();
    if vector.is_empty() || vector.iter().all(|x| *x == 0.0) {
        return Err(format!(
            "the embedding of index {index} is empty or all zero"
        ));
    }
    Ok(vector)
}

/// The numbers of the embedding of `index`, in f64.
///
/// # Errors
/// A value that is not a number (saying when the embedding is an array of arrays), or
/// one that is not finite.
fn wide_values(values: &[Value], index: usize) -> Result<Vec<f64>, String> {
    let mut wide = Vec::with_capacity(values.len());
    for (k, x) in values.iter().enumerate() {
        let f = x.as_f64().ok_or_else(|| {
            format!(
                "the embedding of index {index} holds {} at position {k}, not a number{}",
                crate::text::first_chars(&x.to_string(), 40),
                if x.is_array() {
                    " (an array of arrays, not one flat vector)"
                } else {
                    ""
                }
            )
        })?;
        if !f.is_finite() {
            return Err(format!(
                "the embedding of index {index} holds a non-finite value at position {k}"
            ));
        }
        wide.push(f);
    }
    Ok(wide)
}

/// Scale an embedding to unit length (left as is when zero): servers differ in whether
/// they normalize.
fn normalize(v: &mut [f32]) {
    // Scaled by the largest magnitude first, so squares of huge values (1e20) cannot
    // overflow to infinity and turn the vector into zeros.
    let m = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if m > 0.0 && m.is_finite() {
        v.iter_mut().for_each(|x| *x /= m);
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}
