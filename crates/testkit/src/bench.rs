//! What the benchmarks share: a deterministic generator, so runs are comparable, and
//! percentiles of timings.

/// xorshift64: the same seed gives the same sequence on every machine.
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in (0, 1), 53 bits.
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Uniform in [0, 1), 24 bits.
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Standard normal (Box–Muller).
    pub fn gaussian(&mut self) -> f64 {
        (-2.0 * self.unit().ln()).sqrt() * (std::f64::consts::TAU * self.unit()).cos()
    }

    /// Roughly normal and cheap: the sum of four uniforms, centred (variance 1/3).
    pub fn rough_gaussian(&mut self) -> f32 {
        (0..4).map(|_| self.unit_f32()).sum::<f32>() - 2.0
    }
}

/// The `p` quantile (0–1) of `samples` (sorted in place); NaN when there are none.
pub fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples.get(index).copied().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_draws_within_their_ranges() {
        let (mut a, mut b) = (XorShift(42), XorShift(42));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            let unit = a.unit();
            assert!(unit > 0.0 && unit < 1.0);
            assert!(a.below(7) < 7);
            assert!((0.0..1.0).contains(&a.unit_f32()));
            b.unit();
            b.below(7);
            b.unit_f32();
        }
        let mut samples = vec![3.0, 1.0, 2.0, 5.0, 4.0];
        assert_eq!(percentile(&mut samples, 0.5), 3.0);
        assert_eq!(percentile(&mut samples, 1.0), 5.0);
        assert!(percentile(&mut [], 0.5).is_nan());
    }
}
