"""First render of the unread page in headless Chromium on loopback: logs in, then loads /unread
RENDERS times and reads the browser's own Paint Timing (first-contentful-paint, from the start of
navigation) and Navigation Timing (response end, DOM content loaded). Prints min / median / max.
Arguments: BASE_URL USER PASSWORD RENDERS"""
import statistics
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

# Paint entries can come after the load event that ends driver.get: wait for the first (buffered).
FIRST_PAINT = """
const done = arguments[arguments.length - 1];
new PerformanceObserver((list) => {
  const paint = list.getEntries().find((entry) => entry.name === "first-contentful-paint");
  if (paint) done(paint.startTime);
}).observe({type: "paint", buffered: true});
setTimeout(() => done(-1), 5000);
"""
base, user, password, renders = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
options = webdriver.ChromeOptions()
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(base + "/login")
    driver.find_element(By.ID, "name").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "main form button").click()
    driver.get(base + "/unread")  # warm: the stylesheet and script are then cached, as for a reader
    figures = {"first contentful paint": [], "response end": [], "DOM content loaded": []}
    for _ in range(renders):
        driver.get(base + "/unread")
        paint = driver.execute_async_script(FIRST_PAINT)
        navigation = driver.execute_script("return performance.getEntriesByType('navigation')[0].toJSON()")
        if paint < 0:
            raise SystemExit("Chromium reported no first contentful paint")
        figures["first contentful paint"].append(paint)
        figures["response end"].append(navigation["responseEnd"])
        figures["DOM content loaded"].append(navigation["domContentLoadedEventEnd"])
    for name, values in figures.items():
        values.sort()
        print(f"Chromium /unread {name:<24} min {values[0]:7.1f} ms  median {statistics.median(values):7.1f} ms"
              f"  max {values[-1]:7.1f} ms")
finally:
    driver.quit()
