"""The map page in headless Chromium, against a live server holding the demo cities.

For three views (the world, Europe at zoom 5, Paris at zoom 12) it waits for the page's thin
answer and the base map, takes a screenshot, asks the server for the same view itself and checks
that the page drew exactly one marker per item of that answer. It also checks a region
subscription and a live event reach the panel, that clicking the device draws its track
(GET /v1/devices/{id}/track, as the server answers it), that the panel's cluster list is reachable and
usable from the keyboard, that a pin added on one tab appears on a second tab of the same place
through a delta of its thin answer (no whole answer asked again), and that the browser console
holds no error. Then a page from another
origin (PAGE_ORIGIN_PORT on 127.0.0.1, which the server allows with --cors-origin) calls the API
with fetch() and a Bearer key, and the same page from an origin not allowed (localhost) cannot.
Usage: MERIDIAN_URL=… PAGE_ORIGIN_PORT=… python scripts/page-test.py ARTIFACT_DIR
"""
import functools
import http.server
import json
import os
import pathlib
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timedelta, timezone

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

BASE = __import__("os").environ["MERIDIAN_URL"]
ARTIFACTS = pathlib.Path(sys.argv[1])
VIEWS = [("world", 2, 20.0, 10.0), ("europe", 5, 50.0, 10.0), ("paris", 12, 48.8566, 2.3522)]
DEMO_CITIES = 34006
failures = []


def check(condition, message):
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failures.append(message)


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800",
                     "--force-device-scale-factor=1", "--disable-gpu", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, script, what, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def visit(driver, name, zoom, latitude, longitude):
    answers = driver.execute_script("return window.meridianPage ? window.meridianPage.answers : 0")
    driver.execute_script(f"location.hash = '#map={zoom}/{latitude}/{longitude}'")
    wait(driver, f"return window.meridianPage && window.meridianPage.answers > {answers} && window.meridianPage.viewport.zoomLevel === {zoom}",
         f"the thin answer of the {name} view")
    # The base map's tiles in view, loaded (past zoom 6 they are zoom 6's, scaled).
    wait(driver, "const t = document.querySelectorAll('.leaflet-tile-container img.leaflet-tile');"
                 "return t.length > 0 && [...t].every(i => i.complete && i.classList.contains('leaflet-tile-loaded'))",
         f"the base map of the {name} view")
    time.sleep(0.3)  # markers' fade-in
    page = driver.execute_script("return window.meridianPage")
    answer = call("POST", "/v1/annotations/thin", {"viewport": page["viewport"], "limit": 2000})
    drawn = driver.execute_script("return document.querySelectorAll('.leaflet-marker-pane .leaflet-marker-icon').length")
    clusters = driver.execute_script("return document.querySelectorAll('.leaflet-marker-pane .meridian-cluster').length")
    expected_clusters = sum(1 for item in answer["items"] if item["type"] == "cluster")
    check(drawn == len(answer["items"]) > 0, f"{name}: {drawn} markers drawn for the {len(answer['items'])} items the server answers for the page's view")
    check(clusters == expected_clusters, f"{name}: {clusters} cluster circles for {expected_clusters} clusters")
    path = ARTIFACTS / f"page-{name}.png"
    driver.save_screenshot(str(path))
    print(f"      screenshot {path}")
    return answer


def subscribe_and_move():
    """A region around the Louvre and a device walking into it: one region, one enter event."""
    subscription = call("POST", "/v1/subscriptions", {
        "type": "region", "name": "Louvre", "deviceIds": ["courier-7"],
        "region": {"circle": {"center": {"latitude": 48.8606, "longitude": 2.3376}, "radius": 400}},
    })
    return subscription


def walk(start):
    fixes = []
    for i, (latitude, longitude) in enumerate([(48.8530, 2.3200), (48.8565, 2.3290), (48.8600, 2.3370), (48.8610, 2.3385)]):
        fixes.append({"coordinate": {"latitude": latitude, "longitude": longitude}, "horizontalAccuracy": 10,
                      "timestamp": (start + timedelta(seconds=i)).isoformat(timespec="milliseconds").replace("+00:00", "Z")})
    return call("POST", "/v1/devices/courier-7/locations", {"locations": fixes})


def main():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subscribe_and_move()
    driver = browser()
    try:
        driver.get(BASE + "/#map=2/20/10")
        world = visit(driver, *VIEWS[0])
        counted = sum(item["count"] if item["type"] == "cluster" else 1 for item in world["items"])
        check(counted == DEMO_CITIES, f"world: the clusters and pins count all {DEMO_CITIES} cities ({counted})")
        regions = driver.find_elements(By.CSS_SELECTOR, "#regions button")
        check([r.text for r in regions] == ["Louvre"], f"the panel lists the region subscription ({[r.text for r in regions]})")
        attribution = driver.find_element(By.CSS_SELECTOR, ".leaflet-control-attribution").text
        check("OpenStreetMap contributors" in attribution, f"the map credits OpenStreetMap ({attribution!r})")
        visit(driver, *VIEWS[1])
        # Live: fixes posted now reach the panel through the event stream, and the track is drawn.
        walk(datetime.now(timezone.utc) - timedelta(seconds=5))  # fresh fixes: within maxLocationAge (15 s)
        events = wait(driver, "const e = document.querySelectorAll('#events li'); return e.length ? [...e].map(x => x.textContent) : null",
                      "the live event")
        check(any("enter" in e and "courier-7" in e for e in events), f"the panel shows the enter event ({events})")
        check(driver.execute_script("return document.querySelectorAll('.leaflet-overlay-pane path').length") >= 2,
              "the region and the device's track are drawn")
        visit(driver, *VIEWS[2])
        keyboard(driver)
        visit(driver, *VIEWS[2])  # back from the cluster's zoom; a click moves the keyboard's starting point, so last
        selected_track(driver)
        two_tabs(driver)
    finally:
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not errors, f"the console holds no error ({errors})")
        driver.quit()
    cross_origin()
    if failures:
        sys.exit(f"{len(failures)} page checks failed")
    print("page: every check passed")


def two_tabs(driver):
    """A pin added on one tab appears on another tab showing the same place through a delta of its
    thin answer (deltaToken / since), without the other tab asking for its whole view again."""
    quiet = "#map=14/-40/-120"  # the South Pacific: no city, so the new pin stands alone
    first = driver.current_window_handle
    answers = driver.execute_script("return window.meridianPage.answers")
    driver.execute_script(f"location.hash = '{quiet}'")
    wait(driver, f"return window.meridianPage.answers > {answers} && window.meridianPage.viewport.zoomLevel === 14", "tab 1's quiet view")
    driver.switch_to.new_window("tab")
    driver.get(BASE + "/" + quiet)
    wait(driver, "return window.meridianPage && window.meridianPage.answers > 0", "tab 2's view")
    before = driver.execute_script("return window.meridianPage")
    driver.switch_to.window(first)
    driver.find_element(By.ID, "pin-title").send_keys("Delta pin")
    driver.find_element(By.CSS_SELECTOR, "#pin-form button").click()
    wait(driver, "return document.querySelector('.leaflet-marker-icon[title=\"Delta pin\"]')", "the new pin on tab 1")
    driver.switch_to.window(driver.window_handles[-1])
    wait(driver, "return document.querySelector('.leaflet-marker-icon[title=\"Delta pin\"]')", "the new pin on tab 2", timeout=15)
    after = driver.execute_script("return window.meridianPage")
    check(after["deltas"] > before["deltas"] and after["answers"] == before["answers"],
          f"tab 2 drew the pin tab 1 added from a delta, not a whole answer (deltas {before['deltas']} → {after['deltas']}, "
          f"whole answers {before['answers']} → {after['answers']})")
    driver.save_screenshot(str(ARTIFACTS / "page-delta.png"))
    driver.close()
    driver.switch_to.window(first)


def selected_track(driver):
    """Clicking the device's dot draws its whole track, as the server answers it for the page's tolerance."""
    dot = driver.find_element(By.CSS_SELECTOR, ".leaflet-overlay-pane path.meridian-device")
    ActionChains(driver).move_to_element(dot).click().perform()
    drawn = wait(driver, "return window.meridianPage.track", "the selected device's track")
    answer = call("GET", f"/v1/devices/courier-7/track?tolerance={drawn['tolerance']}")
    geometry = answer["geometry"]
    parts = [geometry["coordinates"]] if geometry["type"] == "LineString" else geometry["coordinates"]
    lines = driver.execute_script("return document.querySelectorAll('.leaflet-overlay-pane path.meridian-track').length")
    check(drawn["deviceId"] == "courier-7" and drawn["parts"] == len(parts) == lines
          and drawn["positions"] == sum(len(p) for p in parts) >= 2,
          f"clicking the device draws its track: {lines} line(s), {drawn['positions']} positions at {drawn['tolerance']} m, as the server answers")
    driver.save_screenshot(str(ARTIFACTS / "page-track.png"))


def keyboard(driver):
    """Tab to the skip link, Enter to the panel, Tab to the first listed item, Enter: a cluster zooms in."""
    driver.execute_script("location.hash = '#map=5/50/10'")
    wait(driver, "return window.meridianPage.viewport.zoomLevel === 5 && document.querySelectorAll('#items button').length > 0", "the Europe list")
    time.sleep(0.5)
    body = driver.find_element(By.TAG_NAME, "body")
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    body.send_keys(Keys.TAB)
    check(driver.execute_script("return document.activeElement.className") == "skip", "Tab reaches the skip link first")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    driver.switch_to.active_element.send_keys(Keys.TAB)
    focused = driver.execute_script("return document.activeElement.closest('#items') ? document.activeElement.textContent : null")
    check(focused is not None and focused.startswith("cluster"), f"Tab then reaches the panel's largest cluster ({focused!r})")
    before = driver.execute_script("return window.meridianPage.answers")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait(driver, f"return window.meridianPage.answers > {before}", "the zoom into the cluster")
    zoom = driver.execute_script("return window.meridianPage.viewport.zoomLevel")
    check(zoom > 5, f"Enter on a cluster zooms in to its expansion zoom ({zoom})")


CROSS_ORIGIN_PAGE = """<!doctype html><meta charset="utf-8"><title>another origin</title><link rel="icon" href="data:,"><script>
window.result = (async () => {
  const api = new URLSearchParams(location.search).get("api");
  const key = {"Authorization": "Bearer mrd_page_test"};  // open mode: any key goes; the preflight must allow the field
  const thin = await fetch(api + "/v1/annotations/thin", {method: "POST", headers: {...key, "Content-Type": "application/json"},
    body: JSON.stringify({viewport: {size: {width: 800, height: 600}, center: {latitude: 48.8566, longitude: 2.3522}, zoomLevel: 12}})});
  const answer = await thin.json();
  const list = await (await fetch(api + "/v1/annotations?limit=1", {headers: key})).json();
  const one = await fetch(api + "/v1/annotations/" + list.annotations[0].id, {headers: key});
  const etag = one.headers.get("ETag");
  const again = await fetch(api + "/v1/annotations/" + list.annotations[0].id, {headers: {...key, "If-None-Match": etag}, cache: "no-store"});
  return {status: thin.status, items: answer.items.length, requestId: thin.headers.get("X-Request-Id"), etag, again: again.status};
})().catch(error => ({error: String(error)}));
</script>"""


def cross_origin():
    """The page at http://127.0.0.1:PORT (allowed) reads answers, ETag and X-Request-Id; at http://localhost:PORT it cannot."""
    port = int(os.environ["PAGE_ORIGIN_PORT"])
    folder = tempfile.mkdtemp()
    pathlib.Path(folder, "index.html").write_text(CROSS_ORIGIN_PAGE)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    driver = browser()
    try:
        result = lambda: driver.execute_async_script("const done = arguments[arguments.length - 1]; window.result.then(done)")
        driver.get(f"http://127.0.0.1:{port}/?api={BASE}")
        got = result()
        expected = call("POST", "/v1/annotations/thin", {"viewport": {"size": {"width": 800, "height": 600},
                                                                     "center": {"latitude": 48.8566, "longitude": 2.3522}, "zoomLevel": 12}})
        check(got.get("status") == 200 and got.get("items") == len(expected["items"]) > 0,
              f"another origin: fetch() with a Bearer key gets the thin answer ({got})")
        check(bool(got.get("requestId")) and bool(got.get("etag")), f"another origin: X-Request-Id and ETag are readable ({got})")
        check(got.get("again") == 304, f"another origin: If-None-Match with that ETag is 304 ({got.get('again')})")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not errors, f"another origin: the console holds no error ({errors})")
        driver.get(f"http://localhost:{port}/?api={BASE}")
        refused = result()
        check("error" in refused, f"an origin not allowed (localhost) cannot read the API ({refused})")
        driver.get_log("browser")  # the refusal's CORS errors, expected
    finally:
        driver.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
