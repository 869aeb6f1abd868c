"""The OGC's CQL2 cases (Tests/Fixtures/cql2/cases.json, see its README) against a live server, on a
tenant that holds only their 243-point layer: every case in CQL2-Text and CQL2-JSON, through
`GET /ogc/collections/annotations/items?filter=…&filter-lang=…` (each page to the last) and
`POST /v1/annotations/search` (each `nextCursor` to the last); the number of features must be the
case's `expected`. Used by scripts/ogc-check.py (`cases`)."""
import collections
import concurrent.futures
import json
import urllib.error
import urllib.parse
import urllib.request

ENCODINGS = ("cql2-text", "cql2-json")
SOURCES = ("ats-table", "ats-method")


def request_json(url, key, body=None):
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/geo+json, application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def count_ogc(base, key, collection="annotations", **query):
    """The features `/ogc/collections/{collection}/items` answers for `query`, every page, by the `next` links."""
    url = f"{base}/ogc/collections/{collection}/items?" + urllib.parse.urlencode(dict(limit=10000, **query))
    count = 0
    while url:
        page = request_json(url, key)
        count += len(page["features"])
        url = next((urllib.parse.urljoin(url, link["href"]) for link in page.get("links", []) if link.get("rel") == "next"), None)
    return count


def count_search(base, key, cql2):
    """The annotations `POST /v1/annotations/search` answers for `cql2`, every page, by `nextCursor`."""
    body, count = {"filter": cql2, "limit": 1000}, 0
    while True:
        page = request_json(f"{base}/v1/annotations/search", key, body)
        count += len(page["annotations"])
        if "nextCursor" not in page:
            return count
        body["cursor"] = page["nextCursor"]


def run(base, key, case, route, encoding):
    cql2 = case["text"] if encoding == "cql2-text" else case["json"]
    try:
        if route == "/ogc":
            text = cql2 if encoding == "cql2-text" else json.dumps(cql2, ensure_ascii=False)
            return count_ogc(base, key, filter=text, **{"filter-lang": encoding})
        return count_search(base, key, cql2)
    except urllib.error.HTTPError as error:
        return f"{error.code} {error.read()[:300].decode('utf-8', 'replace')}"


def check_cases(base, key, cases_path, routes, check):
    with open(cases_path, encoding="utf-8") as file:
        cases = json.load(file)["cases"]
    total = count_search(base, key, True)
    if not check("cases: the tenant holds only the 243 points of the OGC's layer", total == 243, total):
        return
    runs = [(case, route, encoding) for route in routes for case in cases for encoding in ENCODINGS]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda job: run(base, key, *job), runs))
    passed, seen, wrong = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    for (case, route, encoding), answer in zip(runs, answers):
        seen[route, case["class"], case["source"], encoding] += 1
        if answer == case["expected"]:
            passed[route, case["class"], case["source"], encoding] += 1
        else:
            cql2 = case["text"] if encoding == "cql2-text" else json.dumps(case["json"], ensure_ascii=False)
            wrong[route].append(f"{case['id']} [{encoding}] {cql2}: expected {case['expected']}, got {answer}")
    for route in routes:
        print(f"     {route}: passed, per conformance class  {'OGC table rows':<27}generic test methods")
        for name in sorted({name for r, name, _, _ in seen if r == route}):
            cells = [f"{passed[route, name, source, encoding]:3}/{seen[route, name, source, encoding]:<3}"
                     for source in SOURCES for encoding in ENCODINGS]
            print(f"     {name:37} text {cells[0]} json {cells[1]}   text {cells[2]} json {cells[3]}")
        where = "/ogc/…/items?filter=" if route == "/ogc" else "POST /v1/annotations/search"
        check(f"cases: all {len(cases)} CQL2 cases in both encodings through {where}", not wrong[route],
              f"{len(wrong[route])} of {2 * len(cases)} wrong:\n  " + "\n  ".join(wrong[route][:40]))
