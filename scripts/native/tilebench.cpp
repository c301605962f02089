// Native Recast tiled bake, for timing NavJump's tiled bake (issue 17) against it.
//   tilebench MESH.obj PARTITION RUNS|serve TILE TILE_SIZE
// The flow of RecastDemo's Sample_TileMesh (build all tiles, one thread): the grid of the
// whole mesh cut into TILE_SIZE x TILE_SIZE-cell tiles; each tile rasterises the triangles
// whose bounds touch it plus a border of walkableRadius + 3 cells, runs the solo stages
// with that border (regions know it), and its polygons become one Detour tile added to a
// tiled dtNavMesh. Triangles are binned to tiles once per bake (RecastDemo's chunky mesh is
// built at load time instead; the binning is timed apart as "bin_triangles" and is part of
// TOTAL_RECAST here). Settings: RecastDemo's defaults (common.h). TILE k tiles the mesh
// k x k as scripts/bench.py --tile does. Output and the serve protocol are bench.cpp's
// (READY / RESULT / QUIT lines of JSON; stages summed over the tiles), plus "tiles".
#include "common.h"

#include <algorithm>

enum TStage { TS_BIN, TS_RASTER, TS_FILTER, TS_COMPACT, TS_ERODE, TS_REGIONS, TS_CONTOURS,
              TS_POLYMESH, TS_DETAIL, TS_DETOUR, TS_TOTAL_RECAST, TS_TOTAL, TS_COUNT };
static const char* TSTAGE_NAMES[TS_COUNT] = {
	"bin_triangles", "rasterize", "filter", "compact", "erode", "regions(+distfield)", "contours",
	"polygons", "detail", "detour_create", "TOTAL_RECAST", "TOTAL"};

struct Clock  // wall and process CPU of consecutive stages
{
	double wall, cpu;
	Clock() : wall(now_ms()), cpu(cpu_ms()) {}
	void lap(double* t, double* c, int stage)
	{
		const double w = now_ms(), p = cpu_ms();
		t[stage] += w - wall;
		c[stage] += p - cpu;
		wall = w;
		cpu = p;
	}
};

static unsigned int nextPow2(unsigned int v)
{
	unsigned int p = 1;
	while (p < v) p <<= 1;
	return p;
}

static unsigned int ilog2(unsigned int v)
{
	unsigned int r = 0;
	while (v >>= 1) r++;
	return r;
}

struct TiledBake
{
	double t[TS_COUNT], c[TS_COUNT];
	int tiles = 0, polygons = 0, detailTriangles = 0;
	double area3d = 0;
	dtNavMesh* nav = nullptr;

	~TiledBake() { dtFreeNavMesh(nav); }

	bool build(rcContext* ctx, const Mesh& m, const Settings& s, int tileSize)
	{
		for (int i = 0; i < TS_COUNT; ++i) t[i] = c[i] = 0;
		tiles = polygons = detailTriangles = 0;
		area3d = 0;
		dtFreeNavMesh(nav);
		nav = nullptr;
		const float* verts = m.verts.data();
		const int nverts = m.nverts();
		const int ntris = m.ntris();
		float bmin[3], bmax[3];
		rcCalcBounds(verts, nverts, bmin, bmax);

		rcConfig cfg;
		memset(&cfg, 0, sizeof(cfg));
		cfg.cs = s.cellSize;
		cfg.ch = s.cellHeight;
		cfg.walkableSlopeAngle = s.agentMaxSlope;
		cfg.walkableHeight = (int)ceilf(s.agentHeight / cfg.ch);
		cfg.walkableClimb = (int)floorf(s.agentMaxClimb / cfg.ch);
		cfg.walkableRadius = (int)ceilf(s.agentRadius / cfg.cs);
		cfg.maxEdgeLen = (int)(s.edgeMaxLen / s.cellSize);
		cfg.maxSimplificationError = s.edgeMaxError;
		cfg.minRegionArea = (int)rcSqr(s.regionMinSize);
		cfg.mergeRegionArea = (int)rcSqr(s.regionMergeSize);
		cfg.maxVertsPerPoly = (int)s.vertsPerPoly;
		cfg.tileSize = tileSize;
		cfg.borderSize = cfg.walkableRadius + 3;
		cfg.width = cfg.tileSize + cfg.borderSize * 2;
		cfg.height = cfg.tileSize + cfg.borderSize * 2;
		cfg.detailSampleDist = s.detailSampleDist < 0.9f ? 0 : s.cellSize * s.detailSampleDist;
		cfg.detailSampleMaxError = s.cellHeight * s.detailSampleMaxError;

		int gw = 0, gh = 0;
		rcCalcGridSize(bmin, bmax, cfg.cs, &gw, &gh);
		const int tw = (gw + tileSize - 1) / tileSize;
		const int th = (gh + tileSize - 1) / tileSize;
		const float tcs = tileSize * cfg.cs;
		const float pad = cfg.borderSize * cfg.cs;

		const double t0 = now_ms(), c0 = cpu_ms();
		Clock clk;
		// Tiled Detour mesh: tile and polygon bits from the counts, as Sample_TileMesh.
		unsigned int tileBits = std::min(ilog2(nextPow2((unsigned)(tw * th))), 14u);
		unsigned int polyBits = 22 - tileBits;
		dtNavMeshParams np;
		memset(&np, 0, sizeof(np));
		rcVcopy(np.orig, bmin);
		np.tileWidth = tcs;
		np.tileHeight = tcs;
		np.maxTiles = 1 << tileBits;
		np.maxPolys = 1 << polyBits;
		nav = dtAllocNavMesh();
		if (dtStatusFailed(nav->init(&np))) return false;

		// Bin each triangle into every tile its bounds (grown by the border) touch.
		std::vector<int> count(tw * th + 1, 0);
		std::vector<int> lo(ntris * 2), hi(ntris * 2);
		for (int i = 0; i < ntris; ++i)
		{
			const float* a = &verts[m.tris[i * 3 + 0] * 3];
			const float* b = &verts[m.tris[i * 3 + 1] * 3];
			const float* d = &verts[m.tris[i * 3 + 2] * 3];
			const float x0 = std::min(a[0], std::min(b[0], d[0])) - pad;
			const float x1 = std::max(a[0], std::max(b[0], d[0])) + pad;
			const float z0 = std::min(a[2], std::min(b[2], d[2])) - pad;
			const float z1 = std::max(a[2], std::max(b[2], d[2])) + pad;
			const int ix0 = std::max(0, (int)floorf((x0 - bmin[0]) / tcs));
			const int ix1 = std::min(tw - 1, (int)floorf((x1 - bmin[0]) / tcs));
			const int iz0 = std::max(0, (int)floorf((z0 - bmin[2]) / tcs));
			const int iz1 = std::min(th - 1, (int)floorf((z1 - bmin[2]) / tcs));
			lo[i * 2] = ix0; hi[i * 2] = ix1; lo[i * 2 + 1] = iz0; hi[i * 2 + 1] = iz1;
			for (int z = iz0; z <= iz1; ++z)
				for (int x = ix0; x <= ix1; ++x) count[z * tw + x + 1]++;
		}
		for (int k = 0; k < tw * th; ++k) count[k + 1] += count[k];
		std::vector<int> fill(count.begin(), count.end() - 1);
		std::vector<int> items(count[tw * th]);
		for (int i = 0; i < ntris; ++i)
			for (int z = lo[i * 2 + 1]; z <= hi[i * 2 + 1]; ++z)
				for (int x = lo[i * 2]; x <= hi[i * 2]; ++x) items[fill[z * tw + x]++] = i;
		std::vector<int>().swap(lo);
		std::vector<int>().swap(hi);
		clk.lap(t, c, TS_BIN);

		std::vector<int> ttris;
		std::vector<unsigned char> tareas;
		for (int y = 0; y < th; ++y)
			for (int x = 0; x < tw; ++x)
			{
				const int k = y * tw + x;
				const int n = count[k + 1] - count[k];
				if (n == 0) continue;
				rcConfig tc = cfg;
				tc.bmin[0] = bmin[0] + x * tcs - pad;
				tc.bmin[1] = bmin[1];
				tc.bmin[2] = bmin[2] + y * tcs - pad;
				tc.bmax[0] = bmin[0] + (x + 1) * tcs + pad;
				tc.bmax[1] = bmax[1];
				tc.bmax[2] = bmin[2] + (y + 1) * tcs + pad;
				ttris.resize(n * 3);
				for (int j = 0; j < n; ++j)
				{
					const int tri = items[count[k] + j];
					ttris[j * 3 + 0] = m.tris[tri * 3 + 0];
					ttris[j * 3 + 1] = m.tris[tri * 3 + 1];
					ttris[j * 3 + 2] = m.tris[tri * 3 + 2];
				}
				tareas.assign(n, 0);
				clk = Clock();
				rcHeightfield* hf = rcAllocHeightfield();
				if (!rcCreateHeightfield(ctx, *hf, tc.width, tc.height, tc.bmin, tc.bmax, tc.cs, tc.ch))
					return false;
				rcMarkWalkableTriangles(ctx, tc.walkableSlopeAngle, verts, nverts, ttris.data(), n,
				                        tareas.data());
				if (!rcRasterizeTriangles(ctx, verts, nverts, ttris.data(), tareas.data(), n, *hf,
				                          tc.walkableClimb))
					return false;
				clk.lap(t, c, TS_RASTER);
				if (s.filterLowHangingObstacles) rcFilterLowHangingWalkableObstacles(ctx, tc.walkableClimb, *hf);
				if (s.filterLedgeSpans) rcFilterLedgeSpans(ctx, tc.walkableHeight, tc.walkableClimb, *hf);
				if (s.filterWalkableLowHeightSpans) rcFilterWalkableLowHeightSpans(ctx, tc.walkableHeight, *hf);
				clk.lap(t, c, TS_FILTER);
				rcCompactHeightfield* chf = rcAllocCompactHeightfield();
				if (!rcBuildCompactHeightfield(ctx, tc.walkableHeight, tc.walkableClimb, *hf, *chf))
					return false;
				rcFreeHeightField(hf);
				clk.lap(t, c, TS_COMPACT);
				if (!rcErodeWalkableArea(ctx, tc.walkableRadius, *chf)) return false;
				clk.lap(t, c, TS_ERODE);
				bool ok;
				if (s.partition == 0)
					ok = rcBuildDistanceField(ctx, *chf) &&
					     rcBuildRegions(ctx, *chf, tc.borderSize, tc.minRegionArea, tc.mergeRegionArea);
				else if (s.partition == 1)
					ok = rcBuildRegionsMonotone(ctx, *chf, tc.borderSize, tc.minRegionArea,
					                            tc.mergeRegionArea);
				else
					ok = rcBuildLayerRegions(ctx, *chf, tc.borderSize, tc.minRegionArea);
				if (!ok) return false;
				clk.lap(t, c, TS_REGIONS);
				rcContourSet* cset = rcAllocContourSet();
				if (!rcBuildContours(ctx, *chf, tc.maxSimplificationError, tc.maxEdgeLen, *cset))
					return false;
				clk.lap(t, c, TS_CONTOURS);
				if (cset->nconts == 0)
				{
					rcFreeContourSet(cset);
					rcFreeCompactHeightfield(chf);
					continue;
				}
				rcPolyMesh* pmesh = rcAllocPolyMesh();
				if (!rcBuildPolyMesh(ctx, *cset, tc.maxVertsPerPoly, *pmesh)) return false;
				clk.lap(t, c, TS_POLYMESH);
				rcPolyMeshDetail* dmesh = rcAllocPolyMeshDetail();
				if (!rcBuildPolyMeshDetail(ctx, *pmesh, *chf, tc.detailSampleDist,
				                           tc.detailSampleMaxError, *dmesh))
					return false;
				rcFreeCompactHeightfield(chf);
				rcFreeContourSet(cset);
				clk.lap(t, c, TS_DETAIL);
				tiles++;
				polygons += pmesh->npolys;
				detailTriangles += dmesh->ntris;
				if (pmesh->npolys > 0 && tc.maxVertsPerPoly <= DT_VERTS_PER_POLYGON)
				{
					for (int i = 0; i < pmesh->npolys; ++i)
					{
						if (pmesh->areas[i] == RC_WALKABLE_AREA) pmesh->areas[i] = POLYAREA_GROUND;
						if (pmesh->areas[i] == POLYAREA_GROUND) pmesh->flags[i] = POLYFLAGS_WALK;
					}
					dtNavMeshCreateParams p;
					memset(&p, 0, sizeof(p));
					p.verts = pmesh->verts; p.vertCount = pmesh->nverts;
					p.polys = pmesh->polys; p.polyAreas = pmesh->areas; p.polyFlags = pmesh->flags;
					p.polyCount = pmesh->npolys; p.nvp = pmesh->nvp;
					p.detailMeshes = dmesh->meshes; p.detailVerts = dmesh->verts;
					p.detailVertsCount = dmesh->nverts; p.detailTris = dmesh->tris;
					p.detailTriCount = dmesh->ntris;
					p.walkableHeight = s.agentHeight; p.walkableRadius = s.agentRadius;
					p.walkableClimb = s.agentMaxClimb;
					p.tileX = x; p.tileY = y; p.tileLayer = 0;
					rcVcopy(p.bmin, pmesh->bmin); rcVcopy(p.bmax, pmesh->bmax);
					p.cs = tc.cs; p.ch = tc.ch;
					p.buildBvTree = true;
					unsigned char* data = nullptr;
					int size = 0;
					if (!dtCreateNavMeshData(&p, &data, &size)) return false;
					if (dtStatusFailed(nav->addTile(data, size, DT_TILE_FREE_DATA, 0, 0)))
					{
						dtFree(data);
						return false;
					}
				}
				rcFreePolyMesh(pmesh);
				rcFreePolyMeshDetail(dmesh);
				clk.lap(t, c, TS_DETOUR);
			}
		t[TS_TOTAL] = now_ms() - t0;
		c[TS_TOTAL] = cpu_ms() - c0;
		t[TS_TOTAL_RECAST] = t[TS_TOTAL] - t[TS_DETOUR];
		c[TS_TOTAL_RECAST] = c[TS_TOTAL] - c[TS_DETOUR];
		return true;
	}
};

static void printStages(const char* key, const double* v)
{
	printf("\"%s\": {", key);
	for (int i = 0; i < TS_COUNT; ++i) printf("%s\"%s\": %.4f", i ? ", " : "", TSTAGE_NAMES[i], v[i]);
	printf("}");
}

int main(int argc, char** argv)
{
	if (argc < 6)
	{
		fprintf(stderr, "usage: %s MESH.obj PARTITION RUNS|serve TILE TILE_SIZE\n", argv[0]);
		return 2;
	}
	Settings s;
	s.partition = atoi(argv[2]);
	const bool serve = !strcmp(argv[3], "serve");
	const int runs = serve ? 0 : atoi(argv[3]);
	const int tile = atoi(argv[4]);
	const int tileSize = atoi(argv[5]);
	if (tileSize < 8) { fprintf(stderr, "TILE_SIZE must be >= 8 cells\n"); return 2; }
	Mesh m;
	if (!loadObj(argv[1], m)) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
	tileMesh(m, tile);

	rcContext ctx(false);
	TiledBake bk;
	if (!bk.build(&ctx, m, s, tileSize)) { fprintf(stderr, "bake failed\n"); return 1; }
	const double first = bk.t[TS_TOTAL];
	if (serve)
	{
		printf("READY {\"first_bake_ms\": %.3f, \"triangles\": %d}\n", first, m.ntris());
		fflush(stdout);
	}
	char cmd[64];
	for (int r = 0; serve ? fgets(cmd, sizeof cmd, stdin) != nullptr : r < runs; ++r)
	{
		if (serve && !strncmp(cmd, "quit", 4)) break;
		if (!bk.build(&ctx, m, s, tileSize)) { fprintf(stderr, "bake failed\n"); return 1; }
		printf("RESULT {\"polygons\": %d, \"tiles\": %d, \"detail_triangles\": %d, ", bk.polygons,
		       bk.tiles, bk.detailTriangles);
		printStages("wall", bk.t);
		printf(", ");
		printStages("cpu", bk.c);
		printf("}\n");
		fflush(stdout);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("QUIT {\"peak_rss_mb\": %.1f}\n", ru.ru_maxrss / 1024.0);
	return 0;
}
