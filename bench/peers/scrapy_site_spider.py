# The Scrapy side of bench/traps.mjs: the CrawlSpider a new user writes to crawl one site, every
# link on the seed's host followed, each page's title scraped. It goes into a project made by
# `scrapy startproject` (so the settings are that template's: ROBOTSTXT_OBEY = True, no
# DEPTH_LIMIT) and runs as `scrapy crawl site -a start=URL`.
from urllib.parse import urlparse

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class SiteSpider(CrawlSpider):
    name = "site"
    rules = (Rule(LinkExtractor(), callback="parse_item", follow=True),)

    def __init__(self, start=None, *args, **kwargs):
        self.start_urls = [start]
        self.allowed_domains = [urlparse(start).hostname]
        super().__init__(*args, **kwargs)

    def parse_item(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
