-- Where a paper's figures and tables are: the page, the caption's block and the block it
-- captions (the figure's graphics, the table's rows), in PDF points from the page's
-- bottom left, with the page's size. Found when the PDF is parsed; the caption passage
-- is the chunk of the same paper whose section is the label, on that page.
CREATE TABLE figures (
    paper_id TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER NOT NULL,
    page_width REAL NOT NULL,
    page_height REAL NOT NULL,
    left REAL NOT NULL,
    bottom REAL NOT NULL,
    right REAL NOT NULL,
    top REAL NOT NULL,
    caption_left REAL NOT NULL,
    caption_bottom REAL NOT NULL,
    caption_right REAL NOT NULL,
    caption_top REAL NOT NULL,
    PRIMARY KEY (paper_id, label)
);
