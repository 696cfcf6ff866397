"""The HTML report: every table and summary the other sections make, as a page, and the first page.  Always on
(no config of its own)."""
