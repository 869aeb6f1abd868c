// Meridian's map page: Leaflet on the OpenStreetMap base map, the thin endpoint's answer for
// every view (clusters and pins as DOM markers), region subscriptions, live events and tracks.
// No build step; everything it shows comes from the contract's endpoints. Leaflet is the ES
// module build datasette-leaflet ships.
import * as L from '/web/vendor/leaflet/leaflet.js';

const THIN_DEBOUNCE_MS = 150;   // a pan or zoom settles before the view is asked for
const THIN_LIMIT = 2000;        // items per view (the thin endpoint allows 10 000)
const REFRESH_MS = 2000;        // how often a still view asks what changed since its answer (a delta)
const LISTED_ITEMS = 200;       // items the panel lists, largest first
const SHOWN_EVENTS = 50;
const TRACK_FIXES = 20;         // last fixes drawn per device
const LEAVES_SHOWN = 100;
const TRACK_WINDOW_MS = 10 * 60e3; // a track starts with the fixes of its last ten minutes

const state = {
  key: sessionStorage.getItem('meridian-key'),
  thin: null,          // the AbortController of the view being asked for
  timer: null,
  refresh: null,       // the timer of the next delta request
  shown: null,         // the answer drawn: {token, items: Map(id → item), markers: Map(id → marker)}
  tracks: new Map(),   // device id → {line, dot, fixes}
  selected: null,      // the device whose whole track is drawn, and the request for it
  subscriptions: [],   // the region subscriptions drawn
  world: 0,            // which copy of the world the map shows (regions and tracks are drawn on it)
};
const $ = (id) => document.getElementById(id);
const map = L.map('map', { worldCopyJump: true, minZoom: 0, maxZoom: 18 });
const items = L.layerGroup().addTo(map);
const regions = L.layerGroup().addTo(map);
const tracks = L.layerGroup().addTo(map);
const selectedTrack = L.layerGroup().addTo(map);

// What the page drew for the thin answer of which view: read by the page test.
window.meridianPage = { viewport: null, items: 0, drawn: 0, answers: 0, deltas: 0, resets: 0, track: null };

function status(text) { $('status').textContent = text; }

function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** A call of the API with the key, if one was given; a 401 asks for one. */
async function api(path, options = {}) {
  const headers = new Headers(options.headers || {});
  if (state.key) headers.set('Authorization', `Bearer ${state.key}`);
  if (options.body) headers.set('Content-Type', 'application/json');
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) {
    $('key-form').hidden = false;
    throw new Error('this server needs an API key');
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    throw new Error(problem.detail || `${path} answered ${response.status}`);
  }
  return response;
}

/** A longitude of the copy of the world the map shows now (so 179° and −179° sit side by side). */
function near(longitude) {
  const center = map.getCenter().lng;
  return longitude + 360 * Math.round((center - longitude) / 360);
}

function latLng(coordinate) { return [coordinate.latitude, near(coordinate.longitude)]; }

/** A line's or ring's positions ([longitude, latitude]) as one unbroken path: the first near the
 * map's centre, each next one within 180° of the one before (a path across 180° stays narrow). */
function path(positions) {
  let previous = null;
  return positions.map(([longitude, latitude]) => {
    const lng = previous === null ? near(longitude) : longitude + 360 * Math.round((previous - longitude) / 360);
    previous = lng;
    return [latitude, lng];
  });
}

function wrapped(longitude) { return ((((longitude + 180) % 360) + 360) % 360) - 180; }

// MARK: - Base map

async function addBaseMap() {
  const response = await fetch('/tiles/osm.json');
  if (!response.ok) { status('No base map: run make web, or start the server with --basemap.'); return; }
  const info = await response.json();
  L.tileLayer(info.tiles[0], {
    minZoom: 0, maxZoom: 18, minNativeZoom: info.minzoom, maxNativeZoom: info.maxzoom,
    attribution: escapeHTML(info.attribution || ''),
  }).addTo(map);
}

// MARK: - Thinning

/** The thin endpoint's viewport of what the map shows: Leaflet's zoom is MapKit's zoom level. */
function viewport() {
  const size = map.getSize();
  const center = map.getCenter();
  return {
    size: { width: size.x, height: size.y },
    center: { latitude: center.lat, longitude: wrapped(center.lng) },
    zoomLevel: map.getZoom(),
  };
}

function scheduleThin() {
  clearTimeout(state.timer);
  state.timer = setTimeout(thin, THIN_DEBOUNCE_MS);
}

/** Asks for the view: with the token of the answer drawn, so the server answers only what changed
 * (a still view), or the whole answer (`reset`: a new view, or a token it no longer holds). */
async function thin() {
  state.thin?.abort();
  clearTimeout(state.refresh);
  const controller = new AbortController();
  state.thin = controller;
  const view = viewport();
  const body = { viewport: view, limit: THIN_LIMIT };
  if (state.shown) body.since = state.shown.token;
  try {
    const response = await api('/v1/annotations/thin', { method: 'POST', body: JSON.stringify(body), signal: controller.signal });
    const answer = await response.json();
    if (controller.signal.aborted) return;
    if (answer.items) draw(answer, view); else applyDelta(answer, view);
  } catch (error) {
    if (error.name !== 'AbortError') status(error.message);
  } finally {
    if (state.thin === controller) state.refresh = setTimeout(thin, REFRESH_MS);
  }
}

/** The panel's form: a pin at the map's centre. Every page showing that place sees it at its next
 * delta request, without reloading its view. */
async function addPin(event) {
  event.preventDefault();
  const center = map.getCenter();
  const title = $('pin-title').value.trim();
  try {
    await api('/v1/annotations', {
      method: 'POST',
      body: JSON.stringify({ coordinate: { latitude: center.lat, longitude: wrapped(center.lng) }, ...(title ? { title } : {}) }),
    });
    $('pin-title').value = '';
    thin();
  } catch (error) {
    status(error.message);
  }
}

function itemID(item) { return item.type === 'cluster' ? item.id : item.annotation.id; }

function marker(item) { return item.type === 'cluster' ? clusterMarker(item) : pinMarker(item); }

function draw(answer, view) {
  items.clearLayers();
  $('leaves').hidden = true;
  const shown = { token: answer.deltaToken, items: new Map(), markers: new Map() };
  for (const item of answer.items) {
    const layer = marker(item);
    shown.items.set(itemID(item), item);
    shown.markers.set(itemID(item), layer);
    items.addLayer(layer);
  }
  state.shown = shown;
  if (answer.reset) window.meridianPage.resets += 1;
  describeView(answer, view);
  window.meridianPage.answers += 1;
}

/** What changed since the answer drawn: only those markers are removed, replaced or added. */
function applyDelta(answer, view) {
  const shown = state.shown;
  for (const id of answer.removed) {
    items.removeLayer(shown.markers.get(id));
    shown.markers.delete(id);
    shown.items.delete(id);
  }
  for (const item of [...answer.changed, ...answer.added]) {
    const id = itemID(item);
    if (shown.markers.has(id)) items.removeLayer(shown.markers.get(id));
    const layer = marker(item);
    shown.items.set(id, item);
    shown.markers.set(id, layer);
    items.addLayer(layer);
  }
  shown.token = answer.deltaToken;
  if (answer.removed.length || answer.changed.length || answer.added.length) {
    describeView(answer, view);
    window.meridianPage.deltas += 1;
  }
}

function describeView(answer, view) {
  const list = [...state.shown.items.values()];
  const annotations = list.reduce((sum, item) => sum + (item.type === 'cluster' ? item.count : 1), 0);
  status(`Zoom ${answer.zoomLevel}: ${list.length} items for ${annotations} annotations${answer.truncated ? ' (cut at the limit)' : ''}`);
  listItems(list);
  Object.assign(window.meridianPage, { viewport: view, items: list.length, drawn: items.getLayers().length });
}

function clusterMarker(cluster) {
  const side = Math.round(28 + 9 * Math.log10(cluster.count));
  const stack = cluster.expansionZoom == null;
  const icon = L.divIcon({
    className: `meridian-cluster${stack ? ' stack' : ''}`, iconSize: [side, side],
    html: `<span>${cluster.count >= 10000 ? `${Math.round(cluster.count / 1000)}k` : cluster.count}</span>`,
  });
  const marker = L.marker(latLng(cluster.coordinate), { icon, title: describe(cluster), alt: describe(cluster), keyboard: true });
  return actOnEnter(marker, () => openCluster(cluster, marker));
}

function pinMarker(item) {
  const annotation = item.annotation;
  const marker = L.marker(latLng(annotation.coordinate), { title: describe(item), alt: describe(item), keyboard: true });
  marker.bindPopup(pinPopup(annotation));
  return actOnEnter(marker, () => marker.openPopup());
}

/** Clicks, and Enter or Space on a focused marker, do the same thing. */
function actOnEnter(marker, action) {
  marker.on('click', action);
  marker.on('add', () => marker.getElement()?.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); action(); }
  }));
  return marker;
}

function describe(item) {
  if (item.type === 'cluster') {
    const what = item.expansionZoom == null ? 'stack' : 'cluster';
    return `${what} of ${item.count}${item.clusteringIdentifier ? ` (${item.clusteringIdentifier})` : ''}`;
  }
  return item.annotation.title || item.annotation.kind || 'annotation';
}

function pinPopup(annotation) {
  return `<strong>${escapeHTML(annotation.title || '(untitled)')}</strong><br>`
    + `kind: ${escapeHTML(annotation.kind || '—')}<br>priority: ${annotation.displayPriority}`;
}

/** Zooms to where the cluster splits; a stack never splits, so its annotations are listed, in a
 * popup on its marker (or at its place) and in the panel. */
async function openCluster(cluster, marker) {
  if (cluster.expansionZoom != null) {
    map.setView(latLng(cluster.coordinate), cluster.expansionZoom);
    return;
  }
  // A stack never splits: list its leaves.
  try {
    const page = await (await api(`/v1/clusters/${encodeURIComponent(cluster.id)}/leaves?limit=${LEAVES_SHOWN}`)).json();
    const names = page.annotations.map((a) => `<li>${escapeHTML(a.title || a.id)}</li>`).join('');
    const html = `<strong>${cluster.count} at one place</strong><ul>${names}</ul>`;
    if (marker) marker.bindPopup(html).openPopup();
    else L.popup().setLatLng(latLng(cluster.coordinate)).setContent(html).openOn(map);
    $('leaves').innerHTML = html;
    $('leaves').hidden = false;
  } catch (error) {
    status(error.message);
  }
}

/** The panel's list of what the view holds, largest first: the keyboard's way to the map. */
function listItems(list) {
  const sorted = [...list].sort((a, b) => (b.count || 1) - (a.count || 1)).slice(0, LISTED_ITEMS);
  $('items').replaceChildren(...sorted.map((item) => {
    const button = document.createElement('button');
    button.className = 'item';
    button.type = 'button';
    button.textContent = describe(item);
    button.addEventListener('click', () => {
      if (item.type === 'cluster') {
        const marker = items.getLayers().find((layer) => layer.options.title === describe(item) && layer.getLatLng().equals(latLng(item.coordinate)));
        openCluster(item, marker);
      } else {
        map.setView(latLng(item.annotation.coordinate), Math.max(map.getZoom(), 10));
        L.popup().setLatLng(latLng(item.annotation.coordinate)).setContent(pinPopup(item.annotation)).openOn(map);
      }
    });
    const entry = document.createElement('li');
    entry.append(button);
    return entry;
  }));
}

// MARK: - Regions

async function loadRegions() {
  const page = await (await api('/v1/subscriptions?limit=1000')).json();
  state.subscriptions = page.subscriptions.filter((s) => s.type === 'region' && s.region);
  drawRegions();
}

function drawRegions() {
  regions.clearLayers();
  const entries = [];
  for (const subscription of state.subscriptions) {
    const layer = regionLayer(subscription.region);
    if (!layer) continue;
    const name = subscription.name || subscription.id;
    layer.bindTooltip(escapeHTML(name));
    regions.addLayer(layer);
    const button = document.createElement('button');
    button.className = 'item';
    button.type = 'button';
    button.textContent = name;
    button.addEventListener('click', () => map.fitBounds(layer.getBounds(), { maxZoom: 15 }));
    const entry = document.createElement('li');
    entry.append(button);
    entries.push(entry);
  }
  $('regions').replaceChildren(...entries);
  if (!entries.length) $('regions').innerHTML = '<li class="hint">No region subscriptions.</li>';
}

function regionLayer(region) {
  const style = { color: '#7a3ee0', weight: 2, fillOpacity: 0.08 };
  if (region.circle) return L.circle(latLng(region.circle.center), { ...style, radius: region.circle.radius });
  if (region.type === 'Polygon') return L.polygon(region.coordinates.map(path), style);
  if (region.corridor) return L.polyline(path(region.corridor.line.coordinates), { ...style, weight: 6, opacity: 0.5 });
  return null;
}

// MARK: - Events and tracks

async function followEvents() {
  let last = null;
  for (;;) {
    try {
      if (!$('key-form').hidden) throw new Error('waiting for an API key');
      const headers = last ? { 'Last-Event-ID': last } : {};
      const response = await api('/v1/events/stream', { headers });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = readMessage(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message.id) last = message.id;
          if (message.data && message.event !== 'shutdown') showEvent(JSON.parse(message.data), message.event);
        }
      }
    } catch (error) {
      status(`Events: ${error.message}; reconnecting`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function readMessage(block) {
  const message = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    message[field] = field === 'data' && message.data ? `${message.data}\n${value}` : value;
  }
  return message;
}

function showEvent(event, type) {
  const entry = document.createElement('li');
  const time = new Date(event.occurredAt).toLocaleTimeString();
  entry.innerHTML = `<span class="kind">${escapeHTML(event.type || type)}</span> ${escapeHTML(event.deviceId)}`
    + ` · ${escapeHTML(event.subscriptionName || event.subscriptionId)} · ${escapeHTML(time)}`;
  const list = $('events');
  list.prepend(entry);
  while (list.children.length > SHOWN_EVENTS) list.lastChild.remove();
  if (event.location) addFix(event.deviceId, event.location);
}

/** A device's last fixes as a line, its newest as a dot. */
function addFix(deviceId, fix) {
  let track = state.tracks.get(deviceId);
  if (!track) {
    track = { fixes: [], line: L.polyline([], { color: '#d6452e', weight: 3 }), dot: L.circleMarker([0, 0], { radius: 5, color: '#d6452e', fillOpacity: 1, className: 'meridian-device' }) };
    track.dot.bindTooltip(escapeHTML(deviceId));
    track.dot.on('click', () => selectTrack(deviceId));
    tracks.addLayer(track.line).addLayer(track.dot);
    state.tracks.set(deviceId, track);
  }
  if (track.fixes.some((known) => known.timestamp === fix.timestamp)) return;
  track.fixes.push(fix);
  track.fixes.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  track.fixes = track.fixes.slice(-TRACK_FIXES);
  drawTrack(track);
}

function drawTrack(track) {
  const points = path(track.fixes.map((f) => [f.coordinate.longitude, f.coordinate.latitude]));
  track.line.setLatLngs(points);
  track.dot.setLatLng(points[points.length - 1]);
}

/** Metres of one screen pixel at the map's centre (Web Mercator, 256-pixel tiles): a track simplified
 *  to it looks the same as the whole one. */
function pixelMetres() {
  return 156543.03392804097 * Math.cos(map.getCenter().lat * Math.PI / 180) / 2 ** map.getZoom();
}

/** Draws a device's whole stored track, simplified to a pixel at this zoom (asked again when the zoom changes). */
async function selectTrack(deviceId) {
  state.selected?.abort?.abort();
  const abort = new AbortController();
  state.selected = { deviceId, abort };
  const tolerance = Math.max(0.5, Math.round(pixelMetres() * 10) / 10);
  let feature;
  try {
    feature = await (await api(`/v1/devices/${encodeURIComponent(deviceId)}/track?tolerance=${tolerance}`, { signal: abort.signal })).json();
  } catch (error) {
    if (error.name !== 'AbortError') status(error.message);
    return;
  }
  if (abort.signal.aborted) return;
  state.selected.feature = feature;
  drawSelectedTrack();
  const { fixCount, keptCount } = feature.properties;
  status(`${deviceId}: ${keptCount} of ${fixCount} fixes at ${tolerance} m${feature.properties.nextFrom ? ' (the first part of the range)' : ''}`);
}

function drawSelectedTrack() {
  selectedTrack.clearLayers();
  const feature = state.selected?.feature;
  const geometry = feature?.geometry;
  const parts = !geometry ? [] : geometry.type === 'LineString' ? [geometry.coordinates] : geometry.coordinates;
  for (const part of parts) selectedTrack.addLayer(L.polyline(path(part), { color: '#1f5fbf', weight: 4, opacity: 0.8, className: 'meridian-track' }));
  window.meridianPage.track = feature ? { deviceId: state.selected.deviceId, parts: parts.length,
    positions: parts.reduce((n, part) => n + part.length, 0), tolerance: feature.properties.tolerance } : null;
}

async function loadTracks() {
  const page = await (await api('/v1/devices?limit=100')).json();
  for (const device of page.devices.filter((d) => d.lastFix)) {
    const since = new Date(Date.parse(device.lastFix.timestamp) - TRACK_WINDOW_MS).toISOString();
    const fixes = await (await api(`/v1/devices/${encodeURIComponent(device.id)}/locations?from=${encodeURIComponent(since)}&limit=1000`)).json();
    for (const fix of fixes.locations.slice(-TRACK_FIXES)) addFix(device.id, fix);
    addFix(device.id, device.lastFix);
  }
}

// MARK: - Start

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  state.key = $('key').value.trim();
  sessionStorage.setItem('meridian-key', state.key);
  $('key-form').hidden = true;
  start();
});

$('pin-form').addEventListener('submit', addPin);

function start() {
  scheduleThin();
  loadRegions().catch((error) => status(error.message));
  loadTracks().catch((error) => status(error.message));
}

/** `#map=zoom/latitude/longitude`, as openstreetmap.org writes it: a view to link to and come back to. */
function viewFromHash(initial) {
  const match = /^#map=(\d+)\/(-?[\d.]+)\/(-?[\d.]+)$/.exec(location.hash);
  const [zoom, latitude, longitude] = match ? match.slice(1).map(Number) : [];
  if (match && [zoom, latitude, longitude].every(Number.isFinite)) map.setView([latitude, longitude], zoom);
  else if (initial) map.setView([30, 10], 2);
}

map.on('moveend', () => {
  const center = map.getCenter();
  // Panned onto another copy of the world: regions and tracks follow.
  const world = Math.round(center.lng / 360);
  if (world !== state.world) {
    state.world = world;
    drawRegions();
    for (const track of state.tracks.values()) drawTrack(track);
    drawSelectedTrack();
  }
  history.replaceState(null, '', `#map=${map.getZoom()}/${center.lat.toFixed(4)}/${wrapped(center.lng).toFixed(4)}`);
  scheduleThin();
});
map.on('zoomend', () => {
  if (state.selected) selectTrack(state.selected.deviceId);
});
window.addEventListener('hashchange', () => viewFromHash(false));
viewFromHash(true);
addBaseMap().catch((error) => status(error.message));
start();
followEvents();
