//! `asterism-fixture-server --port N`: serves the recorded Sesame (and later ADS and
//! arXiv) responses on loopback. Prints its base URL once listening.

use asterism_testkit::{FixtureServer, sesame_routes};
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
    let server = FixtureServer::start_on(sesame_routes(), args.port).await?;
    println!("{}", server.url());
    server.serve_forever().await;
    Ok(())
}
