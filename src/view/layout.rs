//! A stable layout of the graph: one position per vertex for the whole run, computed
//! once on the union of every triplet the run ever held, so a vertex stays where it is
//! from step to step and only appears and disappears.
//!
//! Force-directed (Fruchterman and Reingold): vertices repel, triplets pull their
//! vertices together, a weak gravity keeps separate components near the middle, and a
//! cooling temperature caps each move. Repulsion only acts within a few ideal lengths,
//! found through a grid of cells, so an iteration costs about the number of vertices.
//! Vertices start on a sunflower spiral in order of first appearance (the first ones
//! in the middle), and nothing is random: the same run always gets the same picture.

use std::collections::HashMap;

/// The ideal distance between joined vertices, in page pixels.
pub const IDEAL: f64 = 70.0;

/// Iterations of the force simulation.
const ITERATIONS: usize = 220;

/// Repulsion reaches this many ideal lengths.
const REACH: f64 = 3.0;

/// Pull toward the middle, relative to the distance from it.
const GRAVITY: f64 = 0.03;

/// Positions for `n` vertices joined by the undirected `pairs` (indices below `n`).
pub fn layout(n: usize, pairs: &[(usize, usize)]) -> Vec<(f64, f64)> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let mut pos: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let r = IDEAL * 0.9 * (i as f64 + 0.5).sqrt();
            let a = i as f64 * golden;
            (r * a.cos(), r * a.sin())
        })
        .collect();
    if n < 2 {
        return pos;
    }
    let k = IDEAL;
    let reach = REACH * k;
    let start_temp = k * 2.0;
    for iter in 0..ITERATIONS {
        let temp = start_temp * (1.0 - iter as f64 / ITERATIONS as f64) + 0.5;
        let mut disp = vec![(0.0f64, 0.0f64); n];
        let cell = |p: (f64, f64)| ((p.0 / reach).floor() as i64, (p.1 / reach).floor() as i64);
        let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
        for (i, p) in pos.iter().enumerate() {
            grid.entry(cell(*p)).or_default().push(i);
        }
        for i in 0..n {
            let (cx, cy) = cell(pos[i]);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    let Some(others) = grid.get(&(cx + dx, cy + dy)) else {
                        continue;
                    };
                    for &j in others {
                        if j == i {
                            continue;
                        }
                        let (mut ddx, mut ddy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                        let mut d2 = ddx * ddx + ddy * ddy;
                        if d2 < 1e-6 {
                            // Coincident vertices: push apart along a fixed direction.
                            let a = (i * 7 + j * 13) as f64;
                            (ddx, ddy) = (a.cos() * 0.01, a.sin() * 0.01);
                            d2 = 1e-4;
                        }
                        if d2 > reach * reach {
                            continue;
                        }
                        let f = k * k / d2;
                        disp[i].0 += ddx * f;
                        disp[i].1 += ddy * f;
                    }
                }
            }
        }
        for &(a, b) in pairs {
            if a >= n || b >= n || a == b {
                continue;
            }
            let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
            let d = (dx * dx + dy * dy).sqrt().max(1e-3);
            let f = d / k;
            disp[a].0 -= dx * f;
            disp[a].1 -= dy * f;
            disp[b].0 += dx * f;
            disp[b].1 += dy * f;
        }
        for i in 0..n {
            disp[i].0 -= pos[i].0 * GRAVITY;
            disp[i].1 -= pos[i].1 * GRAVITY;
            let len = (disp[i].0 * disp[i].0 + disp[i].1 * disp[i].1).sqrt();
            if len > 1e-9 {
                let step = len.min(temp);
                pos[i].0 += disp[i].0 / len * step;
                pos[i].1 += disp[i].1 / len * step;
            }
        }
    }
    pos
}

/// A position for an episodic vertex joined to the vertices at `anchors`: beside their
/// middle, off to a side chosen by its `index` so that neighbouring episodes do not
/// cover each other.
pub fn beside(anchors: &[(f64, f64)], index: usize) -> (f64, f64) {
    let (mut x, mut y) = (0.0, 0.0);
    if !anchors.is_empty() {
        for a in anchors {
            x += a.0;
            y += a.1;
        }
        x /= anchors.len() as f64;
        y /= anchors.len() as f64;
    }
    let angle = index as f64 * 2.399_963;
    let r = IDEAL * (0.8 + 0.15 * (index % 5) as f64);
    (x + r * angle.cos(), y + r * angle.sin())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
        ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
    }

    #[test]
    fn layout_is_deterministic_finite_and_spread() {
        // Two stars joined by one edge, and a lone pair.
        let mut pairs: Vec<(usize, usize)> = (1..8).map(|i| (0, i)).collect();
        pairs.extend((9..15).map(|i| (8, i)));
        pairs.push((0, 8));
        pairs.push((15, 16));
        let a = layout(17, &pairs);
        let b = layout(17, &pairs);
        assert_eq!(a, b);
        assert!(a.iter().all(|p| p.0.is_finite() && p.1.is_finite()));
        for i in 0..a.len() {
            for j in i + 1..a.len() {
                assert!(dist(a[i], a[j]) > IDEAL * 0.2, "{i} and {j} overlap: {a:?}");
            }
        }
        // Joined vertices end up nearer than the spread of the whole picture.
        let spread = a.iter().map(|p| dist(*p, (0.0, 0.0))).fold(0.0, f64::max);
        assert!(dist(a[15], a[16]) < spread, "{a:?}");
        assert!(dist(a[0], a[1]) < IDEAL * 2.5, "{a:?}");
    }

    #[test]
    fn tiny_graphs_and_bad_pairs_are_safe() {
        assert!(layout(0, &[]).is_empty());
        assert_eq!(layout(1, &[(0, 0)]).len(), 1);
        let p = layout(2, &[(0, 5), (1, 1)]);
        assert!(p.iter().all(|q| q.0.is_finite()));
        let e = beside(&[(0.0, 0.0), (10.0, 0.0)], 0);
        assert!((dist(e, (5.0, 0.0)) - IDEAL * 0.8).abs() < 1e-9);
    }
}
