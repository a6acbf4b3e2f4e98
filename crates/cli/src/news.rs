//! `asterism news`: today's arXiv submissions ranked for the user's library.

use std::process::ExitCode;

use asterism_agent::{Settings, bootstrap};
use asterism_library::news::{NewsItem, NewsList, NewsRequest, Reason};
use chrono::NaiveDate;

/// The command's options.
#[derive(clap::Args)]
pub struct NewsArgs {
    /// Submissions from this day (YYYY-MM-DD) to today; default yesterday.
    #[arg(long)]
    since: Option<NaiveDate>,
    /// arXiv categories, comma-separated (default NEWS_CATEGORIES, else those of your
    /// library's papers, else astro-ph; astro-ph is all six astro-ph.* categories).
    #[arg(long, value_delimiter = ',')]
    categories: Vec<String>,
    /// Rank this author's papers up too (besides NEWS_AUTHORS). Repeatable.
    #[arg(long = "author", value_name = "NAME")]
    authors: Vec<String>,
    /// How many to show (default NEWS_LIMIT).
    #[arg(long)]
    limit: Option<usize>,
    /// Ask arXiv again even if today's list is cached.
    #[arg(long)]
    refresh: bool,
    #[arg(long)]
    json: bool,
}

pub async fn run(settings: &Settings, args: NewsArgs) -> anyhow::Result<ExitCode> {
    let categories = if args.categories.is_empty() {
        settings.news_categories.clone()
    } else {
        args.categories
    };
    let followed = [settings.news_authors.clone(), args.authors].concat();
    let limit = args.limit.unwrap_or(settings.news_limit);
    let mut request = NewsRequest::today(categories, followed, limit);
    request.refresh = args.refresh;
    if let Some(since) = args.since {
        if since > request.today {
            eprintln!("error: --since {since} is after today ({})", request.today);
            return Ok(ExitCode::from(2));
        }
        request.since = since;
    }
    let services = bootstrap::open_services(settings).await?;
    let news = match services.library.news(&request).await {
        Ok(news) => news,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&news)?);
    } else {
        print(&news);
    }
    Ok(ExitCode::SUCCESS)
}

fn print(news: &NewsList) {
    if let Some(notice) = &news.notice {
        eprintln!("note: {notice}");
    }
    for (index, item) in news.items.iter().enumerate() {
        println!("{}", crate::papers::line(index + 1, &item.paper));
        println!("    score {:.2} · {}", item.score, why(item));
    }
    eprintln!(
        "{} submissions in {} since {} ({}, {}); {} shown, closeness by {}",
        news.submissions,
        news.categories.join(","),
        news.since,
        if news.from_cache { "cached" } else { "fetched" },
        news.fetched_at,
        news.items.len(),
        news.compared_by
    );
}

/// "close to “A 30 Million Year Old…”; names Kepler-1627 (in your library)".
fn why(item: &NewsItem) -> String {
    let reasons: Vec<String> = item
        .reasons
        .iter()
        .map(|reason| match reason {
            Reason::Topic { papers, .. } => {
                let titles: Vec<String> = papers.iter().map(|p| format!("“{}”", p.title)).collect();
                format!("close to {}", titles.join(" and "))
            }
            Reason::Author {
                name,
                followed: true,
                ..
            } => format!("by {name} (you follow)"),
            Reason::Author {
                name,
                library_papers,
                ..
            } => format!("by {name} ({library_papers} papers in your library)"),
            Reason::Object {
                name,
                library_object,
                separation_arcmin: Some(arcmin),
            } => format!("names {name}, {arcmin:.1}′ from {library_object} of your library"),
            Reason::Object { name, .. } => format!("names {name} (in your library)"),
        })
        .collect();
    if reasons.is_empty() {
        "nothing in common with your library".into()
    } else {
        reasons.join("; ")
    }
}
