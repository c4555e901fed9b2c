//! Serde for a ChaCha8 generator as its position (seed, stream, word position), so a saved
//! run draws on exactly where it stopped (`#[serde(with = "crate::rng_serde")]`).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub fn serialize<S: Serializer>(rng: &ChaCha8Rng, s: S) -> Result<S::Ok, S::Error> {
    (rng.get_seed(), rng.get_stream(), rng.get_word_pos()).serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ChaCha8Rng, D::Error> {
    let (seed, stream, word_pos): ([u8; 32], u64, u128) = Deserialize::deserialize(d)?;
    let mut rng = ChaCha8Rng::from_seed(seed);
    rng.set_stream(stream);
    rng.set_word_pos(word_pos);
    Ok(rng)
}
