//! `asterism-mock-llm --script FILE --port N`: a scripted OpenAI-compatible model on
//! loopback, for UI end-to-end tests and demos. Prints its base URL once listening.

use std::path::PathBuf;

use asterism_testkit::{MockLlm, Script};
use clap::Parser;

#[derive(Parser)]
#[command(about = "A scripted OpenAI-compatible model server on 127.0.0.1")]
struct Args {
    /// The script (JSON): turns served in order, one per request.
    #[arg(long)]
    script: PathBuf,
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.script)
        .map_err(|error| anyhow::anyhow!("cannot read {}: {error}", args.script.display()))?;
    let script = Script::from_json(&text).map_err(|error| {
        anyhow::anyhow!("{} is not a valid script: {error}", args.script.display())
    })?;
    let server = MockLlm::start_on(script, args.port).await?;
    println!("{}", server.base_url());
    server.serve_forever().await;
    Ok(())
}
