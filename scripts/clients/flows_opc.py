"""The user flows through the client openapi-python-client generated (package `meridian_client`), each a real call
with the generated models, checked on what comes back."""
import threading

from common import Flows, check, now, van_day

from meridian_client import Client
from meridian_client.api.annotations import (
    create_annotation, delete_annotation, export_annotations, get_annotation, import_annotations, patch_annotation,
    search_annotations)
from meridian_client.api.convert import convert_coordinates_to_map_points
from meridian_client.api.thinning import get_cluster_leaves, get_cluster_tile, thin_annotations
from meridian_client.api.tracking import (
    create_subscription, get_retention, list_events, list_stops, list_trips, post_locations, put_retention)
from meridian_client.api.webhooks import create_webhook, delete_webhook, get_webhook, update_webhook
from meridian_client.models import (
    Annotation, AnnotationInput, AnnotationPage, AnnotationPatch, AnnotationSearch, CenterViewport, Coordinate,
    CoordinateBatch, CQL2FilterType0, EventPage, Feature, FeatureCollection, FeatureCollectionType,
    FeatureFreePropertiesType0, FeaturePropertiesType0, FeatureType, Fix, FixCoordinate, ImportAnswer, IngestAnswer,
    LocationBatch, MapPointBatch, PointGeometry, PointGeometryType, Retention, RetentionSettings, StopPage, TripPage, SignificantChangeSubscriptionInput,
    SignificantChangeSubscriptionInputType, Subscription, ThinAnswer, ThinClusterItem, ThinRequest, ViewSize, Webhook,
    WebhookInput, WebhookPatch, WebhookPatchState)
from meridian_client.types import File


def run(base_url, place, webhook_url):
    client = Client(base_url=base_url, timeout=30, raise_on_unexpected_status=True)
    flows = Flows("openapi-python-client")
    state = {}

    def parsed(response, model, status=200):
        check(response.status_code == status, f"status {response.status_code}, body {response.content[:300]!r}")
        check(isinstance(response.parsed, model), f"parsed as {type(response.parsed).__name__}, not {model.__name__}")
        return response.parsed

    def convert():
        answer = parsed(convert_coordinates_to_map_points.sync_detailed(
            client=client, body=CoordinateBatch(coordinates=[Coordinate(latitude=0, longitude=0)])), MapPointBatch)
        check((answer.map_points[0].x, answer.map_points[0].y) == (134217728, 134217728), f"{answer.map_points[0]}")

    def annotation_lifecycle():
        created = parsed(create_annotation.sync_detailed(client=client, body=AnnotationInput(
            coordinate=Coordinate(latitude=place.latitude, longitude=place.longitude), title="one", kind=place.kind)),
            Annotation, 201)
        read = parsed(get_annotation.sync_detailed(created.id, client=client), Annotation)
        check(read.version == 1 and read.title == "one", f"read back {read}")
        patched = parsed(patch_annotation.sync_detailed(
            created.id, client=client, body=AnnotationPatch(title="two"), if_match=f'"{read.version}"'), Annotation)
        check(patched.version == 2 and patched.title == "two" and patched.kind == place.kind, f"patched {patched}")
        stale = patch_annotation.sync_detailed(created.id, client=client, body=AnnotationPatch(title="three"), if_match='"1"')
        check(stale.status_code == 412, f"a stale If-Match answered {stale.status_code}")
        gone = delete_annotation.sync_detailed(created.id, client=client, if_match='"2"')
        check(gone.status_code == 204, f"delete answered {gone.status_code}")
        check(get_annotation.sync_detailed(created.id, client=client).status_code == 410, "a deleted id is not 410")

    def import_features():
        features = [Feature(
            type_=FeatureType.FEATURE,
            geometry=PointGeometry(type_=PointGeometryType.POINT, coordinates=[longitude, latitude]),
            properties=FeaturePropertiesType0(
                external_id=f"{place.name}-{index}", title=f"{place.name} {index}", kind=place.kind,
                properties=FeatureFreePropertiesType0.from_dict({"rank": index})))
            for index, (latitude, longitude) in enumerate(place.around(20))]
        answer = parsed(import_annotations.sync_detailed(client=client, body=FeatureCollection(
            type_=FeatureCollectionType.FEATURECOLLECTION, features=features)), ImportAnswer)
        check(answer.created + answer.updated + answer.unchanged == 20, f"import answered {answer}")
        state["imported"] = {str(result.id) for result in answer.results}

    def export():
        collection = parsed(export_annotations.sync_detailed(client=client, filter_=f"kind = '{place.kind}'"), FeatureCollection)
        ids = {str(feature.id) for feature in collection.features}
        check(state["imported"] <= ids, f"export lacks {len(state['imported'] - ids)} imported features")
        properties = collection.features[0].properties
        check(isinstance(properties, FeaturePropertiesType0) and properties.kind == place.kind, f"properties {properties}")
        check(isinstance(properties.properties, FeatureFreePropertiesType0), f"free properties {properties.properties}")

    def thin():
        answer = parsed(thin_annotations.sync_detailed(client=client, body=ThinRequest(viewport=CenterViewport(
            size=ViewSize(width=512, height=512), center=Coordinate(latitude=place.latitude, longitude=place.longitude),
            zoom_level=4), kinds=[place.kind])), ThinAnswer)
        clusters = [item for item in answer.items if isinstance(item, ThinClusterItem)]
        check(clusters and clusters[0].count == 20, f"thin answered {answer.items}")
        state["cluster"] = clusters[0].id

    def search():
        page = parsed(search_annotations.sync_detailed(client=client, body=AnnotationSearch(
            filter_=CQL2FilterType0.from_dict({"op": "and", "args": [
                {"op": "=", "args": [{"property": "kind"}, place.kind]},
                {"op": "<", "args": [{"property": "rank"}, 5]}]}))), AnnotationPage)
        check(len(page.annotations) == 5, f"search found {len(page.annotations)}")

    def cluster_leaves():
        page = parsed(get_cluster_leaves.sync_detailed(state["cluster"], client=client, limit=1000), AnnotationPage)
        check({str(annotation.id) for annotation in page.annotations} == state["imported"], "leaves are not the imported ones")

    def cluster_tile():
        x, y = place.tile(4)
        tile = parsed(get_cluster_tile.sync_detailed(4, x, y, client=client, kinds=[place.kind]), File)
        data = tile.payload.read()
        check(len(data) > 0 and data[0] == 0x1A, f"not a vector tile with a layer: {data[:16]!r}")

    def fixes_and_events():
        subscription = parsed(create_subscription.sync_detailed(client=client, body=SignificantChangeSubscriptionInput(
            type_=SignificantChangeSubscriptionInputType.SIGNIFICANTCHANGE, device_ids=[place.device])), Subscription, 201)
        start = parsed(list_events.sync_detailed(client=client, subscription_id=subscription.id), EventPage).next_after
        polled = {}
        poll = threading.Thread(target=lambda: polled.update(response=list_events.sync_detailed(
            client=client, after=start, wait=10, subscription_id=subscription.id)))
        poll.start()
        answer = parsed(post_locations.sync_detailed(place.device, client=client, body=LocationBatch(locations=[Fix(
            coordinate=FixCoordinate(latitude=place.latitude, longitude=place.longitude), timestamp=now(),
            horizontal_accuracy=5)])), IngestAnswer)
        check(answer.results[0].status == "accepted", f"fix answered {answer.results[0]}")
        poll.join(15)
        page = parsed(polled["response"], EventPage)
        check([event.type_ for event in page.events] == ["initial"], f"long poll read {page.events}")

    def webhooks():
        created = parsed(create_webhook.sync_detailed(client=client, body=WebhookInput(url=webhook_url)), Webhook, 201)
        check(created.secret, "no secret on creation")
        check(parsed(get_webhook.sync_detailed(created.id, client=client), Webhook).url == webhook_url, "read back")
        patched = parsed(update_webhook.sync_detailed(created.id, client=client, body=WebhookPatch(
            state=WebhookPatchState.DISABLED)), Webhook)
        check(patched.state == "disabled", f"patched {patched.state}")
        check(delete_webhook.sync_detailed(created.id, client=client).status_code == 204, "delete")
        check(get_webhook.sync_detailed(created.id, client=client).status_code in (404, 410), "a deleted webhook is found")

    def stops_and_trips():
        device = f"{place.device}-van"
        fixes = [Fix(coordinate=FixCoordinate(latitude=lat, longitude=lon), timestamp=at, horizontal_accuracy=5) for lat, lon, at in van_day(place)]
        answer = parsed(post_locations.sync_detailed(device, client=client, body=LocationBatch(locations=fixes)), IngestAnswer)
        check({result.status for result in answer.results} == {"accepted"}, f"fixes answered {answer.results}")
        stops = parsed(list_stops.sync_detailed(device, client=client, radius=100, minimum_duration=120), StopPage).stops
        check(len(stops) == 2 and stops[0].fix_count == 7 and stops[1].fix_count == 7, f"stops {stops}")
        trips = parsed(list_trips.sync_detailed(device, client=client, radius=100, minimum_duration=120), TripPage).trips
        check(len(trips) == 1 and abs(trips[0].distance - 1000) < 50, f"trips {trips}")

    def retention():
        check(parsed(get_retention.sync_detailed(client=client), Retention).first_available_sequence >= 1, "marks")
        ten_years = 10 * 365 * 86_400
        kept = parsed(put_retention.sync_detailed(client=client, body=RetentionSettings(keep_fixes=ten_years)), Retention)
        check(kept.keep_fixes == ten_years, f"put answered {kept}")
        parsed(put_retention.sync_detailed(client=client, body=RetentionSettings()), Retention)

    for name, flow in [("convert", convert), ("create/get/patch with If-Match/delete", annotation_lifecycle),
                       ("import", import_features), ("export", export), ("thin", thin), ("search (CQL2-JSON)", search),
                       ("cluster leaves", cluster_leaves), ("cluster tile (bytes)", cluster_tile),
                       ("post fixes, read events (long poll)", fixes_and_events), ("webhooks CRUD", webhooks),
                       ("stops and trips", stops_and_trips), ("retention settings", retention)]:
        flows.run(name, flow)
    return flows.results
