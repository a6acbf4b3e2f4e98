//! `asterism-fixture-server --port N`: serves the recorded ADS, arXiv and Sesame
//! responses on loopback (any base path: `{url}/ads`, `{url}/arxiv-api`,
//! `{url}/cgi-bin/nph-sesame`). Prints its base URL once listening.

use asterism_testkit::{FixtureServer, all_routes};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Recorded ADS, arXiv and Sesame responses on 127.0.0.1")]
struct Args {
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let server = FixtureServer::start_on(all_routes(), args.port).await?;
    println!("{}", server.url());
    server.serve_forever().await;
    Ok(())
}
