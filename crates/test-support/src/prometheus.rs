//! Reading a `GET /metrics` answer (the Prometheus text exposition format) in tests.

use std::collections::BTreeMap;

/// One scrape: each sample, keyed by metric name and its labels.
#[derive(Debug, Default)]
pub struct Samples(BTreeMap<(String, BTreeMap<String, String>), f64>);

impl Samples {
    /// Parses the text format as far as Loupe's metrics need: label values never hold `"`, `,` or
    /// `}` (they are route templates, methods, statuses and fixed words). Panics on a malformed line.
    pub fn parse(text: &str) -> Self {
        let mut samples = BTreeMap::new();
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("not a sample: {line}"));
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => {
                    let pairs = rest.trim_end_matches('}').split(',').filter(|p| !p.is_empty());
                    let labels = pairs.map(|pair| {
                        let (key, value) =
                            pair.split_once('=').unwrap_or_else(|| panic!("bad label in {line}"));
                        (key.to_owned(), value.trim_matches('"').to_owned())
                    });
                    (name, labels.collect())
                }
                None => (series, BTreeMap::new()),
            };
            let value = value.parse().unwrap_or_else(|_| panic!("bad value in {line}"));
            samples.insert((name.to_owned(), labels), value);
        }
        Self(samples)
    }

    /// The sample with exactly these labels, if the scrape has it.
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let labels = labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        self.0.get(&(name.to_owned(), labels)).copied()
    }

    /// The sample, or 0 for a series not recorded yet (a counter that has not counted).
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.get(name, labels).unwrap_or(0.0)
    }

    /// Every sample of one metric: its labels and value.
    pub fn series(&self, name: &str) -> Vec<(&BTreeMap<String, String>, f64)> {
        self.0.iter().filter(|((n, _), _)| n == name).map(|((_, labels), value)| (labels, *value)).collect()
    }

    /// Every sample, as `name {labels}` and value.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &BTreeMap<String, String>, f64)> {
        self.0.iter().map(|((name, labels), value)| (name.as_str(), labels, *value))
    }
}

#[cfg(test)]
mod tests {
    use super::Samples;

    #[test]
    fn reads_labelled_and_bare_samples() {
        let text = "# HELP x_total X.\n# TYPE x_total counter\nx_total{route=\"/a/{id}\",status=\"200\"} 3\nup 1\nq NaN\n";
        let samples = Samples::parse(text);
        assert_eq!(samples.get("x_total", &[("status", "200"), ("route", "/a/{id}")]), Some(3.0));
        assert_eq!(samples.get("x_total", &[("route", "/a/{id}")]), None);
        assert_eq!(samples.value("up", &[]), 1.0);
        assert!(samples.value("q", &[]).is_nan());
        assert_eq!(samples.series("x_total").len(), 1);
    }
}
