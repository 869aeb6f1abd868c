"""The user flows through the client OpenAPI Generator's `python` generator made (package `meridian_og`), each a real
call with the generated models, checked on what comes back.

OpenAPI Generator's own bug, worked around here (#23650): a model's `from_dict` marks every nullable field the JSON
did not hold as set to None, and `to_dict` then sends it as an explicit null (in a merge patch, null deletes). So
every request model below is built with its constructor, which sends only the fields given, and no model read from
an answer is sent back."""
import threading

from common import Flows, check, now, van_day

from meridian_og import (
    AnnotationsApi, ApiClient, Configuration, ConvertApi, ThinningApi, TrackingApi, WebhooksApi)
from meridian_og.exceptions import ApiException
from meridian_og.models import (
    AnnotationInput, AnnotationPatch, AnnotationSearch, CenterViewport, Coordinate, CoordinateBatch, CQL2Filter, Feature,
    FeatureCollection, FeatureProperties, Fix, FixCoordinate, LocationBatch, PointGeometry, RetentionSettings,
    SignificantChangeSubscriptionInput, SubscriptionInput, ThinClusterItem, ThinRequest, ViewSize, Viewport,
    WebhookInput, WebhookPatch)


def run(base_url, place, webhook_url):
    api = ApiClient(Configuration(host=base_url))
    annotations, convert_api, thinning, tracking, webhooks_api = (
        AnnotationsApi(api), ConvertApi(api), ThinningApi(api), TrackingApi(api), WebhooksApi(api))
    flows = Flows("OpenAPI Generator")
    state = {}

    def status_of(call):
        """The status of a call the client raises for (a 4xx)."""
        try:
            call()
        except ApiException as error:
            return error.status
        raise AssertionError("the call succeeded")

    def convert():
        answer = convert_api.convert_coordinates_to_map_points(CoordinateBatch(coordinates=[Coordinate(latitude=0, longitude=0)]))
        check((answer.map_points[0].x, answer.map_points[0].y) == (134217728, 134217728), f"{answer.map_points[0]}")

    def annotation_lifecycle():
        created = annotations.create_annotation(AnnotationInput(
            coordinate=Coordinate(latitude=place.latitude, longitude=place.longitude), title="one", kind=place.kind))
        read = annotations.get_annotation_with_http_info(created.id)
        check(read.status_code == 200 and read.data.version == 1 and read.headers.get("ETag") == '"1"', f"read back {read}")
        patched = annotations.patch_annotation(created.id, AnnotationPatch(title="two"), if_match='"1"')
        check(patched.version == 2 and patched.title == "two" and patched.kind == place.kind, f"patched {patched}")
        check(status_of(lambda: annotations.patch_annotation(created.id, AnnotationPatch(title="three"), if_match='"1"')) == 412,
              "a stale If-Match is not 412")
        check(annotations.delete_annotation_with_http_info(created.id, if_match='"2"').status_code == 204, "delete")
        check(status_of(lambda: annotations.get_annotation(created.id)) == 410, "a deleted id is not 410")

    def import_features():
        features = [Feature(
            type="Feature", geometry=PointGeometry(type="Point", coordinates=[longitude, latitude]),
            properties=FeatureProperties(external_id=f"{place.name}-{index}", title=f"{place.name} {index}", kind=place.kind,
                                         properties={"rank": index}))
            for index, (latitude, longitude) in enumerate(place.around(20))]
        answer = annotations.import_annotations(FeatureCollection(type="FeatureCollection", features=features))
        check(answer.created + answer.updated + answer.unchanged == 20, f"import answered {answer}")
        state["imported"] = {str(result.id) for result in answer.results}

    def export():
        collection = annotations.export_annotations(filter=f"kind = '{place.kind}'")
        check(isinstance(collection, FeatureCollection), f"export parsed as {type(collection).__name__}")
        ids = {str(feature.id) for feature in collection.features}
        check(state["imported"] <= ids, f"export lacks {len(state['imported'] - ids)} imported features")
        properties = collection.features[0].properties
        check(properties.kind == place.kind and "rank" in properties.properties, f"properties {properties}")

    def thin():
        answer = thinning.thin_annotations(ThinRequest(viewport=Viewport(CenterViewport(
            size=ViewSize(width=512, height=512), center=Coordinate(latitude=place.latitude, longitude=place.longitude),
            zoom_level=4)), kinds=[place.kind]))
        clusters = [item.actual_instance for item in answer.items if isinstance(item.actual_instance, ThinClusterItem)]
        check(clusters and clusters[0].count == 20, f"thin answered {answer.items}")
        state["cluster"] = clusters[0].id

    def search():
        page = annotations.search_annotations(AnnotationSearch(filter=CQL2Filter({"op": "and", "args": [
            {"op": "=", "args": [{"property": "kind"}, place.kind]},
            {"op": "<", "args": [{"property": "rank"}, 5]}]})))
        check(len(page.annotations) == 5, f"search found {len(page.annotations)}")

    def cluster_leaves():
        page = thinning.get_cluster_leaves(state["cluster"], limit=1000)
        check({str(annotation.id) for annotation in page.annotations} == state["imported"], "leaves are not the imported ones")

    def cluster_tile():
        x, y = place.tile(4)
        data = thinning.get_cluster_tile(4, x, y, kinds=[place.kind])
        check(isinstance(data, (bytes, bytearray)) and len(data) > 0 and data[0] == 0x1A, f"not a vector tile: {data[:16]!r}")

    def fixes_and_events():
        subscription = tracking.create_subscription(SubscriptionInput(SignificantChangeSubscriptionInput(
            type="significantChange", device_ids=[place.device])))
        start = tracking.list_events(subscription_id=subscription.id).next_after
        polled = {}
        poll = threading.Thread(target=lambda: polled.update(page=tracking.list_events(
            after=start, wait=10, subscription_id=subscription.id)))
        poll.start()
        answer = tracking.post_locations(place.device, LocationBatch(locations=[Fix(
            coordinate=FixCoordinate(latitude=place.latitude, longitude=place.longitude), timestamp=now(),
            horizontal_accuracy=5)]))
        check(answer.results[0].status == "accepted", f"fix answered {answer.results[0]}")
        poll.join(15)
        # An event page holds LoggedEvents: oneOf an event or an erased device's stub, the instance inside.
        check([event.actual_instance.type for event in polled["page"].events] == ["initial"], f"long poll read {polled}")

    def webhooks():
        created = webhooks_api.create_webhook(WebhookInput(url=webhook_url))
        check(created.secret, "no secret on creation")
        check(webhooks_api.get_webhook(created.id).url == webhook_url, "read back")
        check(webhooks_api.update_webhook(created.id, WebhookPatch(state="disabled")).state == "disabled", "patched")
        check(webhooks_api.delete_webhook_with_http_info(created.id).status_code == 204, "delete")
        check(status_of(lambda: webhooks_api.get_webhook(created.id)) in (404, 410), "a deleted webhook is found")

    def stops_and_trips():
        device = f"{place.device}-van"
        fixes = [Fix(coordinate=FixCoordinate(latitude=lat, longitude=lon), timestamp=at, horizontal_accuracy=5) for lat, lon, at in van_day(place)]
        answer = tracking.post_locations(device, LocationBatch(locations=fixes))
        check({result.status for result in answer.results} == {"accepted"}, f"fixes answered {answer.results}")
        stops = tracking.list_stops(device, radius=100, minimum_duration=120).stops
        check(len(stops) == 2 and stops[0].fix_count == 7 and stops[1].fix_count == 7, f"stops {stops}")
        trips = tracking.list_trips(device, radius=100, minimum_duration=120).trips
        check(len(trips) == 1 and abs(trips[0].distance - 1000) < 50, f"trips {trips}")

    def retention():
        check(tracking.get_retention().first_available_sequence >= 1, "marks")
        ten_years = 10 * 365 * 86_400
        kept = tracking.put_retention(RetentionSettings(keep_fixes=ten_years))
        check(kept.keep_fixes == ten_years, f"put answered {kept}")
        tracking.put_retention(RetentionSettings())

    for name, flow in [("convert", convert), ("create/get/patch with If-Match/delete", annotation_lifecycle),
                       ("import", import_features), ("export", export), ("thin", thin), ("search (CQL2-JSON)", search),
                       ("cluster leaves", cluster_leaves), ("cluster tile (bytes)", cluster_tile),
                       ("post fixes, read events (long poll)", fixes_and_events), ("webhooks CRUD", webhooks),
                       ("stops and trips", stops_and_trips), ("retention settings", retention)]:
        flows.run(name, flow)
    return flows.results
