"""The web page in a real browser: Debian's headless Chromium driven by Selenium (PyPI) with the
system's chromedriver. Every state the page changes is checked through Miniflux's API too (a second
front end over the same store). Fails with a message on the first thing that is not as expected.

Arguments: BASE_URL USER PASSWORD FEED_SERVER_URL ARTIFACT_DIR [desktop|phone]
The whole reading scenario runs at 1280x900 (then the hostile feed's article) or at 360x740 (then the
phone's own checks: no page wider than the screen).
"""
import os
import sys
import time

import requests
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

BASE, USER, PASSWORD, FEEDS, ARTIFACTS = sys.argv[1:6]
MODE = sys.argv[6] if len(sys.argv) > 6 else "desktop"
API = requests.Session()
API.auth = (USER, PASSWORD)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def api(path):
    response = API.get(BASE + path, timeout=30)
    response.raise_for_status()
    return response.json()


def browser(width, height):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-extensions", "--no-first-run", f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if width < 500:  # a headless window is at least 500 px wide: a phone's screen is emulated
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height,
                                                                              "pixelRatio": 2.0, "touch": True}})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


def console_errors(driver):
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def no_alert(driver, where):
    try:
        WebDriverWait(driver, 0.5).until(expected_conditions.alert_is_present())
    except TimeoutException:
        return
    text = driver.switch_to.alert.text
    raise AssertionError(f"an alert ran on {where}: {text!r}")


def visit(driver, path):
    driver.get(BASE + path)
    errors = console_errors(driver)
    check(not errors, f"console errors on {path}: {errors}")


def wait_for(condition, message, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(message)


def log_in(driver, password=PASSWORD):
    driver.get(BASE + "/unread")
    check("/login" in driver.current_url, f"a page without a session did not send to the login: {driver.current_url}")
    driver.find_element(By.ID, "name").send_keys(USER)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "main form button").click()


def category_counts(driver):
    counts = {}
    for link in driver.find_elements(By.CSS_SELECTOR, "aside li a"):
        parts = link.text.rsplit("\n", 1) if "\n" in link.text else link.text.rsplit(" ", 1)
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0].strip()] = int(parts[1])
    return counts


def reading(width, height):
    driver = browser(width, height)
    shot = "" if width > 400 else "phone-"
    try:
        # A wrong password is refused with a message; the right one lands on the unread page.
        log_in(driver, password="not the password")
        wait_for(lambda: "Wrong user name or password" in driver.page_source, "a wrong password was not refused")
        console_errors(driver)  # the refusal's 401, which Chromium logs: expected here
        log_in(driver)
        WebDriverWait(driver, 5).until(lambda d: d.current_url.endswith("/unread"))
        errors = console_errors(driver)
        check(not errors, f"console errors after logging in: {errors}")

        # The unread counts per category are the API's.
        by_api = {c["title"]: c["total_unread"] for c in api("/v1/categories?counts=true") if c["total_unread"]}
        check(category_counts(driver) == by_api, f"sidebar counts {category_counts(driver)} != API {by_api}")
        total = api("/v1/entries?status=unread&limit=1")["total"]
        check(driver.title.startswith(f"({total}) Unread"), f"title {driver.title!r}, {total} unread")
        driver.save_screenshot(os.path.join(ARTIFACTS, shot + "unread.png"))

        # Opening an article marks it read; starring it from its page (no reload) stars it.
        first = driver.find_element(By.LINK_TEXT, "Item 250")
        entry_id = int(first.get_attribute("href").rsplit("/", 1)[1])
        first.click()
        WebDriverWait(driver, 5).until(lambda d: f"/entry/{entry_id}" in d.current_url)
        check(api(f"/v1/entries/{entry_id}")["status"] == "read", "opening the article did not mark it read")
        star = driver.find_element(By.CSS_SELECTOR, "form[data-inline=star] button")
        star.click()
        wait_for(lambda: api(f"/v1/entries/{entry_id}")["starred"], "the star button did not star the article")
        # The page updates the button once the answer is read, which may be after the API sees the star.
        wait_for(lambda: star.get_attribute("aria-pressed") == "true", "the star button does not show the star")
        check(driver.current_url.endswith(f"/entry/{entry_id}"), "starring left the article's page")
        driver.save_screenshot(os.path.join(ARTIFACTS, shot + "article.png"))
        visit(driver, "/starred")
        check(f"/entry/{entry_id}" in driver.page_source, "the starred page does not list the starred article")

        # Keyboard: j selects the first article, m marks it read in place.
        visit(driver, "/unread")
        first_id = int(driver.find_element(By.CSS_SELECTOR, ".entry").get_attribute("id").split("-")[1])
        ActionChains(driver).send_keys("j").perform()
        ActionChains(driver).send_keys("m").perform()
        wait_for(lambda: api(f"/v1/entries/{first_id}")["status"] == "read", "j then m did not mark the first article read")

        # Search highlights the words.
        search = driver.find_element(By.ID, "q")
        search.send_keys("42\n")
        WebDriverWait(driver, 5).until(lambda d: "/search" in d.current_url)
        marks = [m.text for m in driver.find_elements(By.CSS_SELECTOR, ".entries mark")]
        check(marks and all(m == "42" for m in marks), f"search highlights {marks}")
        check(driver.find_elements(By.LINK_TEXT, "Item 42"), "search did not find Item 42")

        # A feed added by its site's address (the page links to its feeds).
        visit(driver, "/feeds")
        driver.find_element(By.ID, "url").send_keys(FEEDS + "/page.html")
        driver.find_element(By.ID, "category").send_keys("Blogs")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/feeds'] button").click()
        WebDriverWait(driver, 5).until(lambda d: "/feed/" in d.current_url)
        urls = [feed["feed_url"] for feed in api("/v1/feeds")]
        check(FEEDS + "/feed.xml" in urls, f"the site's feed was not added: {urls}")

        # Marking a category read.
        news = next(c for c in api("/v1/categories?counts=true") if c["title"] == "News")
        check(news["total_unread"] > 0, "nothing unread in News to mark")
        visit(driver, f"/category/{news['id']}")
        driver.find_element(By.XPATH, "//button[starts-with(., 'Mark all of News read')]").click()
        wait_for(lambda: next(c for c in api("/v1/categories?counts=true") if c["title"] == "News")["total_unread"] == 0,
                 "marking the category read left unread articles")

        # Pages a session needs: logging out ends it.
        visit(driver, "/settings")
        driver.find_element(By.XPATH, "//header//button[.='Log out']").click()
        WebDriverWait(driver, 5).until(lambda d: "/login" in d.current_url)
        driver.get(BASE + "/unread")
        check("/login" in driver.current_url, "after logging out, the unread page still opened")
    finally:
        driver.quit()
    return entry_id


def hostile():
    """The feed whose article tries every trick: nothing runs, nothing reaches another origin."""
    driver = browser(1280, 900)
    try:
        log_in(driver)
        WebDriverWait(driver, 5).until(lambda d: d.current_url.endswith("/unread"))
        entries = api("/v1/entries?search=Hostile&limit=5")["entries"]
        check(entries, "the hostile article is not stored")
        path = f"/entry/{entries[0]['id']}"
        driver.get(BASE + path)
        no_alert(driver, path)
        content = driver.find_element(By.CSS_SELECTOR, ".content")
        for selector in ("script", "iframe", "frame", "form", "style", "object", "embed", "link", "meta", "base", "svg",
                         "[onclick]", "[onerror]", "[onload]", "[onmouseover]", "[style]"):
            found = content.find_elements(By.CSS_SELECTOR, selector)
            check(not found, f"the article kept {selector}")
        for link in content.find_elements(By.TAG_NAME, "a"):
            href = (link.get_attribute("href") or "").strip().lower()
            check(not href.startswith("javascript:"), f"a javascript: link survived: {href}")
            if not href.startswith("http"):  # what is left of the javascript: links: clicking does nothing
                link.click()
                no_alert(driver, path + " after clicking a link")
        for paragraph in content.find_elements(By.TAG_NAME, "p"):
            driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))", paragraph)
        no_alert(driver, path + " after hovering")
        time.sleep(0.5)
        beacons = requests.get(FEEDS + "/beacons", timeout=10).text.split()
        check(not beacons, f"the browser called another origin: {beacons}")
        check("Hostile article" in content.text and "The end." in content.text, f"the harmless text was lost: {content.get_attribute('innerHTML')!r}")
    finally:
        driver.quit()


def phone():
    driver = browser(360, 740)
    try:
        log_in(driver)
        check(driver.execute_script("return window.innerWidth") == 360, "the viewport is not 360 px wide")
        WebDriverWait(driver, 5).until(lambda d: d.current_url.endswith("/unread"))
        for path in ("/unread", "/history", "/feeds", "/settings"):
            visit(driver, path)
            width = driver.execute_script("return document.documentElement.scrollWidth")
            viewport = driver.execute_script("return window.innerWidth")
            check(width <= viewport, f"{path} is wider than the phone: {width} > {viewport}")
        # An article with content (the hostile one's image would fail to load: no internet here).
        visit(driver, "/history")
        driver.find_element(By.LINK_TEXT, "Item 250").click()
        WebDriverWait(driver, 5).until(lambda d: "/entry/" in d.current_url)
        width = driver.execute_script("return document.documentElement.scrollWidth")
        check(width <= driver.execute_script("return window.innerWidth"), f"the article is wider than the phone: {width}")
        errors = console_errors(driver)
        check(not errors, f"console errors on the phone: {errors}")
    finally:
        driver.quit()


if __name__ == "__main__":
    os.makedirs(ARTIFACTS, exist_ok=True)
    if MODE == "phone":
        reading(360, 740)
        phone()
    else:
        reading(1280, 900)
        hostile()
    print("ok")
