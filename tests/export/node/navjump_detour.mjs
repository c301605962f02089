// Loads NavJump's Detour exports with the WASM build of Detour and reports what Detour sees.
//
//   node navjump_detour.mjs query REQUEST.json   -> JSON on stdout
//   node navjump_detour.mjs bake REQUEST.json    -> Detour's own tile data for a triangle mesh
//
// query REQUEST: {"navmeshes": [{"file": PATH, "kind": "mset" | "dnav"}],
//                 "queries": [{"start": [x,y,z], "end": [x,y,z], "halfExtents": [x,y,z],
//                              "includeFlags": int, "excludeFlags": int,
//                              "areaCosts": {area: cost}}],
//                 "points": [[x,y,z], ...], "pointHalfExtents": [x,y,z]}
// Coordinates are Detour's (Y up). For each navmesh the reply holds the loaded tile as Detour
// parsed it (header, polygons with the links Detour built, off-mesh connections), the
// nearest polygon of each point, and for each query findNearestPoly, findPath and
// findStraightPath results.
//
// bake REQUEST: {"positions": [...], "indices": [...], "config": {...},
//                "offMeshConnections": [...], "out": PATH}: runs Recast + dtCreateNavMeshData
// (generateSoloNavMeshData) and writes the raw DNAV tile to PATH.
import { readFileSync, writeFileSync } from 'node:fs';
import {
  init, importNavMesh, NavMesh, NavMeshQuery, QueryFilter, UnsignedCharArray,
} from '@recast-navigation/core';
import { generateSoloNavMeshData } from '@recast-navigation/generators';

const DT_NULL_LINK = 0xffffffff;
const DT_PARTIAL_RESULT = 1 << 6;

const vec = (a) => ({ x: a[0], y: a[1], z: a[2] });
const arr = (v) => [v.x, v.y, v.z];

function loadNavMesh(entry) {
  const bytes = new Uint8Array(readFileSync(entry.file));
  if (entry.kind === 'mset') {
    const { navMesh } = importNavMesh(bytes);
    return navMesh;
  }
  // Detour takes ownership of the buffer (DT_TILE_FREE_DATA): never destroy it here.
  const data = new UnsignedCharArray();
  data.copy(bytes);
  const navMesh = new NavMesh();
  if (!navMesh.initSolo(data)) throw new Error(`initSolo failed for ${entry.file}`);
  return navMesh;
}

function dumpTile(navMesh) {
  let tile = null;
  for (let i = 0; i < navMesh.getMaxTiles(); i++) {
    const t = navMesh.getTile(i);
    if (t && t.header()) { tile = t; break; }
  }
  if (!tile) return null;
  const h = tile.header();
  const header = {
    magic: h.magic(), version: h.version(), polyCount: h.polyCount(), vertCount: h.vertCount(),
    maxLinkCount: h.maxLinkCount(), detailMeshCount: h.detailMeshCount(),
    detailVertCount: h.detailVertCount(), detailTriCount: h.detailTriCount(),
    bvNodeCount: h.bvNodeCount(), offMeshConCount: h.offMeshConCount(),
    offMeshBase: h.offMeshBase(), walkableHeight: h.walkableHeight(),
    walkableRadius: h.walkableRadius(), walkableClimb: h.walkableClimb(),
    bmin: [0, 1, 2].map((k) => h.bmin(k)), bmax: [0, 1, 2].map((k) => h.bmax(k)),
    bvQuantFactor: h.bvQuantFactor(),
  };
  const polyIndex = (ref) => navMesh.decodePolyId(ref).tilePolygonIndex;
  const polys = [];
  for (let i = 0; i < header.polyCount; i++) {
    const p = tile.polys(i);
    const n = p.vertCount();
    const links = [];
    let l = p.firstLink() >>> 0;
    for (let guard = 0; l !== DT_NULL_LINK && guard < header.maxLinkCount; guard++) {
      const link = tile.links(l);
      links.push({ poly: polyIndex(link.ref()), edge: link.edge(), side: link.side() });
      l = link.next() >>> 0;
    }
    const verts = [];
    for (let j = 0; j < n; j++) {
      const v = p.verts(j);
      verts.push([tile.verts(v * 3), tile.verts(v * 3 + 1), tile.verts(v * 3 + 2)]);
    }
    polys.push({
      vertCount: n, flags: p.flags(), area: p.areaAndType() & 0x3f, type: p.getType(),
      neis: [...Array(n).keys()].map((j) => p.neis(j)), verts, links,
    });
  }
  const offMeshCons = [];
  for (let i = 0; i < header.offMeshConCount; i++) {
    const c = tile.offMeshCons(i);
    offMeshCons.push({
      pos: [0, 1, 2, 3, 4, 5].map((k) => c.pos(k)), rad: c.rad(), poly: c.poly(),
      flags: c.flags(), side: c.side(), userId: c.userId(),
    });
  }
  return { header, polys, offMeshCons };
}

function makeFilter(q) {
  const filter = new QueryFilter();
  filter.includeFlags = q.includeFlags ?? 0xffff;
  filter.excludeFlags = q.excludeFlags ?? 0;
  for (const [area, cost] of Object.entries(q.areaCosts ?? {})) {
    filter.setAreaCost(Number(area), cost);
  }
  return filter;
}

function runQuery(navMesh, query, q) {
  const filter = makeFilter(q);
  const halfExtents = vec(q.halfExtents ?? [2, 4, 2]);
  const polyIndex = (ref) => (ref ? navMesh.decodePolyId(ref).tilePolygonIndex : -1);
  const s = query.findNearestPoly(vec(q.start), { filter, halfExtents });
  const e = query.findNearestPoly(vec(q.end), { filter, halfExtents });
  const out = {
    startPoly: polyIndex(s.nearestRef), startPoint: arr(s.nearestPoint),
    endPoly: polyIndex(e.nearestRef), endPoint: arr(e.nearestPoint),
    found: false, partial: false, corridor: [], straight: [], straightFlags: [],
    straightPolys: [],
  };
  if (!s.nearestRef || !e.nearestRef) return out;
  const fp = query.findPath(s.nearestRef, e.nearestRef, s.nearestPoint, e.nearestPoint,
    { filter, maxPathPolys: 512 });
  const refs = Array.from(fp.polys.toTypedArray());
  fp.polys.destroy();
  out.found = fp.success && refs.length > 0;
  out.partial = (fp.status & DT_PARTIAL_RESULT) !== 0;
  out.corridor = refs.map(polyIndex);
  if (!out.found) return out;
  const sp = query.findStraightPath(s.nearestPoint, e.nearestPoint, refs,
    { maxStraightPathPoints: 512 });
  for (let i = 0; i < sp.straightPathCount; i++) {
    out.straight.push([0, 1, 2].map((k) => sp.straightPath.get(i * 3 + k)));
    out.straightFlags.push(sp.straightPathFlags.get(i));
    out.straightPolys.push(polyIndex(sp.straightPathRefs.get(i)));
  }
  sp.straightPath.destroy();
  sp.straightPathFlags.destroy();
  sp.straightPathRefs.destroy();
  return out;
}

function nearestPolys(navMesh, query, points, halfExtents) {
  const he = vec(halfExtents ?? [0.5, 2, 0.5]);
  return points.map((p) => {
    const r = query.findNearestPoly(vec(p), { halfExtents: he });
    return {
      poly: r.nearestRef ? navMesh.decodePolyId(r.nearestRef).tilePolygonIndex : -1,
      point: arr(r.nearestPoint), overPoly: r.isOverPoly,
    };
  });
}

function doQuery(request) {
  const results = [];
  for (const entry of request.navmeshes) {
    const navMesh = loadNavMesh(entry);
    const query = new NavMeshQuery(navMesh, { maxNodes: 4096 });
    results.push({
      file: entry.file,
      kind: entry.kind,
      tile: request.dump === false ? null : dumpTile(navMesh),
      points: nearestPolys(navMesh, query, request.points ?? [], request.pointHalfExtents),
      queries: (request.queries ?? []).map((q) => runQuery(navMesh, query, q)),
    });
  }
  return { results };
}

function doBake(request) {
  const config = { ...request.config };
  if (request.offMeshConnections) {
    config.offMeshConnections = request.offMeshConnections.map((c) => ({
      startPosition: vec(c.start), endPosition: vec(c.end), radius: c.radius,
      bidirectional: c.bidirectional, area: c.area, flags: c.flags, userId: c.userId,
    }));
  }
  const result = generateSoloNavMeshData(request.positions, request.indices, config);
  if (!result.success) throw new Error(`Recast bake failed: ${result.error}`);
  const bytes = result.navMeshData.toTypedArray();
  writeFileSync(request.out, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return { out: request.out, size: bytes.byteLength };
}

const [mode, requestPath] = process.argv.slice(2);
try {
  await init();
  const request = JSON.parse(readFileSync(requestPath, 'utf8'));
  const reply = mode === 'bake' ? doBake(request) : doQuery(request);
  process.stdout.write(JSON.stringify(reply));
} catch (err) {
  process.stderr.write(`navjump_detour: ${err.stack ?? err}\n`);
  process.exit(1);
}
