extension MapAssets {
    /// The page script: decodes the basemap, draws the map, charts and tile list, handles pan, zoom and hover.
    static let script = #"""
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('eddy-data').textContent);
  var status = document.getElementById('eddy-status');
  var PAL = D.palette, NAMES = D.labels;
  var D2R = Math.PI / 180, TWO_PI = 2 * Math.PI, MAXLAT = 85;
  var OCEAN = '#dbe7f3', LAND = '#f2efe6', COAST = '#7d8a99', BORDER = '#b9b1a0', TRACK = '#14213d';
  var now = window.performance && performance.now ? function () { return performance.now(); } : function () { return Date.now() - window.eddyStart; };
  var raf = window.requestAnimationFrame || function (f) { return setTimeout(f, 16); };

  function mx(lon) { return lon * D2R; }
  function my(lat) {
    if (lat > MAXLAT) lat = MAXLAT;
    if (lat < -MAXLAT) lat = -MAXLAT;
    return Math.log(Math.tan(Math.PI / 4 + lat * D2R / 2));
  }
  function invY(y) { return (2 * Math.atan(Math.exp(y)) - Math.PI / 2) / D2R; }
  function decode(str) {
    var pts = [], i = 0, lat = 0, lon = 0, n = str.length, r, s, b;
    while (i < n) {
      r = 0; s = 0;
      do { b = str.charCodeAt(i++) - 63; r |= (b & 31) << s; s += 5; } while (b >= 32);
      lat += (r & 1) ? ~(r >> 1) : (r >> 1);
      r = 0; s = 0;
      do { b = str.charCodeAt(i++) - 63; r |= (b & 31) << s; s += 5; } while (b >= 32);
      lon += (r & 1) ? ~(r >> 1) : (r >> 1);
      pts.push(mx(lon / 100), my(lat / 100));
    }
    return pts;
  }
  function decodeAll(id) {
    var el = document.getElementById(id), out = [];
    if (!el) return out;
    var parts = el.textContent.split(' ');
    for (var i = 0; i < parts.length; i++) if (parts[i].length) out.push(decode(parts[i]));
    return out;
  }
  function pad2(n) { return (n < 10 ? '0' : '') + n; }
  function clock(t) {
    if (D.epoch) {
      var d = new Date(t * 1000);
      return pad2(d.getUTCHours()) + ':' + pad2(d.getUTCMinutes()) + ':' + pad2(d.getUTCSeconds()) + 'Z';
    }
    var s = Math.round(t), sign = s < 0 ? '-' : '';
    s = Math.abs(s);
    return sign + Math.floor(s / 3600) + ':' + pad2(Math.floor(s / 60) % 60) + ':' + pad2(s % 60);
  }
  function shortClock(t) { var c = clock(t); return D.epoch ? c.slice(0, 5) + 'Z' : c.slice(0, c.length - 3); }
  function fmt(v, d) { return (v === null || v === undefined) ? '–' : v.toFixed(d); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) if (attrs.hasOwnProperty(k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.appendChild(document.createTextNode(text));
    return e;
  }

  // ---- data ----
  var rings = decodeAll('eddy-basemap-rings'), borders = decodeAll('eddy-basemap-borders');
  var tiles = D.tiles, i, j;
  for (i = 0; i < tiles.length; i++) {
    var t = tiles[i], v = t.v, xs = [], ys = [], lon0 = v[1], cx = 0, cy = 0;
    t.index = i;
    for (j = 0; j < v.length; j += 2) {
      var lon = v[j + 1];
      while (lon - lon0 > 180) lon -= 360;
      while (lon - lon0 < -180) lon += 360;
      xs.push(mx(lon)); ys.push(my(v[j]));
      cx += xs[xs.length - 1]; cy += ys[ys.length - 1];
    }
    t.xs = xs; t.ys = ys; t.cx = cx / xs.length; t.cy = cy / ys.length;
    t.visible = true;
  }
  // Nowcast cells (tiles with a provenance) first, reports over them: a measurement is never hidden by a nowcast.
  var drawOrder = tiles.slice().sort(function (a, b) { return (a.prov ? 0 : 1) - (b.prov ? 0 : 1) || a.sev - b.sev || a.layer - b.layer || a.index - b.index; });
  var PSTYLE = D.provenanceStyles || {};
  var tr = D.track, tx = [], ty = [], tn = tr.t.length, prevLon = null;
  for (i = 0; i < tn; i++) {
    var la = tr.lat[i], lo = tr.lon[i];
    if (la === null || lo === null) { tx.push(null); ty.push(null); continue; }
    if (prevLon !== null) { while (lo - prevLon > 180) lo -= 360; while (lo - prevLon < -180) lo += 360; }
    prevLon = lo;
    tx.push(mx(lo)); ty.push(my(la));
  }
  var trackGap = D.trackGapSeconds;

  // ---- map view ----
  var mapCanvas = document.getElementById('map'), ctx = mapCanvas.getContext ? mapCanvas.getContext('2d') : null;
  var tip = document.getElementById('tip');
  var W = 0, H = 0, dpr = 1, view = { cx: 0, cy: 0, s: 100 }, hoverT = null, hoverTile = null, screenTiles = [];
  function layoutCanvas(c) {
    var r = c.getBoundingClientRect(), ratio = window.devicePixelRatio || 1;
    var w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
    if (c.width !== Math.round(w * ratio) || c.height !== Math.round(h * ratio)) { c.width = Math.round(w * ratio); c.height = Math.round(h * ratio); }
    return { w: w, h: h, dpr: ratio };
  }
  function sx(x) { return (x - view.cx) * view.s + W / 2; }
  function sy(y) { return (view.cy - y) * view.s + H / 2; }
  function shiftFor(x) { return Math.round((view.cx - x) / TWO_PI) * TWO_PI; }
  function fitBounds(x0, x1, y0, y1) {
    // At least ≈ 6° across, so a short flight still shows coasts and borders around it.
    var w = Math.max(x1 - x0, 0.105), h = Math.max(y1 - y0, 0.07);
    view.cx = (x0 + x1) / 2; view.cy = (y0 + y1) / 2;
    view.s = Math.min(W / (w * 1.15), H / (h * 1.15));
    clampView();
  }
  function clampView() {
    var minS = W / (TWO_PI * 1.2);
    if (view.s < minS) view.s = minS;
    if (view.s > 2e6) view.s = 2e6;
    var ymax = my(MAXLAT);
    if (view.cy > ymax) view.cy = ymax;
    if (view.cy < -ymax) view.cy = -ymax;
  }
  function fitAll() {
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, k;
    for (k = 0; k < tx.length; k++) if (tx[k] !== null) { x0 = Math.min(x0, tx[k]); x1 = Math.max(x1, tx[k]); y0 = Math.min(y0, ty[k]); y1 = Math.max(y1, ty[k]); }
    for (k = 0; k < tiles.length; k++) if (tiles[k].visible) {
      var tt = tiles[k];
      for (var m = 0; m < tt.xs.length; m++) { x0 = Math.min(x0, tt.xs[m]); x1 = Math.max(x1, tt.xs[m]); y0 = Math.min(y0, tt.ys[m]); y1 = Math.max(y1, tt.ys[m]); }
    }
    if (x0 === Infinity) { view.cx = 0; view.cy = my(20); view.s = W / TWO_PI; clampView(); return; }
    fitBounds(x0, x1, y0, y1);
  }
  function pathRings(list, off) {
    for (var r = 0; r < list.length; r++) {
      var p = list[r];
      ctx.moveTo(sx(p[0] + off), sy(p[1]));
      for (var q = 2; q < p.length; q += 2) ctx.lineTo(sx(p[q] + off), sy(p[q + 1]));
    }
  }
  function drawMap() {
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = OCEAN; ctx.fillRect(0, 0, W, H);
    var left = view.cx - W / 2 / view.s, right = view.cx + W / 2 / view.s;
    var kMin = Math.floor((left + Math.PI) / TWO_PI), kMax = Math.floor((right + Math.PI) / TWO_PI), k;
    for (k = kMin; k <= kMax; k++) {
      ctx.beginPath(); pathRings(rings, k * TWO_PI);
      ctx.fillStyle = LAND; ctx.fill();
      ctx.strokeStyle = COAST; ctx.lineWidth = 0.8; ctx.stroke();
      ctx.beginPath(); pathRings(borders, k * TWO_PI);
      ctx.strokeStyle = BORDER; ctx.lineWidth = 0.8; ctx.stroke();
    }
    screenTiles = [];
    var dots = [];
    for (k = 0; k < drawOrder.length; k++) {
      var t = drawOrder[k];
      if (!t.visible) continue;
      var off = shiftFor(t.cx), pts = [], minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
      for (var m = 0; m < t.xs.length; m++) {
        var px = sx(t.xs[m] + off), py = sy(t.ys[m]);
        pts.push(px, py);
        if (px < minX) minX = px; if (px > maxX) maxX = px; if (py < minY) minY = py; if (py > maxY) maxY = py;
      }
      if (maxX < 0 || minX > W || maxY < 0 || minY > H) continue;
      screenTiles.push({ t: t, pts: pts, box: [minX, minY, maxX, maxY] });
      if (maxX - minX < 5) { dots.push(t.sev, (minX + maxX) / 2, (minY + maxY) / 2); continue; }
      ctx.beginPath(); ctx.moveTo(pts[0], pts[1]);
      for (m = 2; m < pts.length; m += 2) ctx.lineTo(pts[m], pts[m + 1]);
      ctx.closePath();
      ctx.fillStyle = PAL[t.sev]; ctx.fill();
      var ps = t.prov ? PSTYLE[t.prov] : null;
      if (ps && maxX - minX > 6) {
        // A nowcast cell: its source's hatch inside the hexagon, then its source's outline (MapPalette.provenanceStyles).
        if (ps.hatch !== null) {
          ctx.save(); ctx.clip(); ctx.strokeStyle = 'rgba(0,0,0,0.55)'; ctx.lineWidth = 1.2; ctx.beginPath();
          var ang = ps.hatch * Math.PI / 180, ddx = Math.cos(ang), ddy = -Math.sin(ang), span = (maxX - minX) + (maxY - minY);
          var mx0 = (minX + maxX) / 2, my0 = (minY + maxY) / 2;
          for (var hOff = -span; hOff <= span; hOff += 6) {
            var bx = mx0 - ddy * hOff, by = my0 + ddx * hOff;
            ctx.moveTo(bx - ddx * span, by - ddy * span); ctx.lineTo(bx + ddx * span, by + ddy * span);
          }
          ctx.stroke(); ctx.restore();
          ctx.beginPath(); ctx.moveTo(pts[0], pts[1]);
          for (m = 2; m < pts.length; m += 2) ctx.lineTo(pts[m], pts[m + 1]);
          ctx.closePath();
        }
        if (ctx.setLineDash) ctx.setLineDash(ps.dash);
        ctx.strokeStyle = t === hoverTile ? '#000' : '#1b1b1b'; ctx.lineWidth = t === hoverTile ? 2.5 : 1.5; ctx.stroke();
        if (ctx.setLineDash) ctx.setLineDash([]);
      } else if (maxX - minX > 6) { ctx.strokeStyle = t === hoverTile ? '#000' : 'rgba(0,0,0,0.35)'; ctx.lineWidth = t === hoverTile ? 2 : 0.6; ctx.stroke(); }
    }
    drawTrack();
    // Hexagons smaller than 5 px (a long flight seen whole) are drawn as dots of their colour above the track.
    for (k = 0; k < dots.length; k += 3) {
      ctx.beginPath(); ctx.arc(dots[k + 1], dots[k + 2], 3, 0, TWO_PI);
      ctx.fillStyle = PAL[dots[k]]; ctx.fill();
    }
    if (hoverT !== null) {
      var hi = trackIndexAt(hoverT);
      if (hi >= 0 && tx[hi] !== null) {
        var hx = sx(tx[hi] + shiftFor(tx[hi])), hy = sy(ty[hi]);
        ctx.beginPath(); ctx.arc(hx, hy, 6, 0, TWO_PI); ctx.fillStyle = '#fff'; ctx.fill();
        ctx.lineWidth = 2.5; ctx.strokeStyle = '#d6336c'; ctx.stroke();
      }
    }
  }
  function trackScreen() {
    var out = [], off = tx.length ? shiftFor(view.cx) : 0, base = null;
    for (var k = 0; k < tx.length; k++) {
      if (tx[k] === null) { out.push(null, null); continue; }
      if (base === null) { base = shiftFor(tx[k]); }
      out.push(sx(tx[k] + base), sy(ty[k]));
    }
    return out;
  }
  function broken(k) { return tx[k] === null || tx[k - 1] === null || tr.t[k] - tr.t[k - 1] > trackGap; }
  function drawTrack() {
    if (!tx.length) return;
    var pts = trackScreen(), pass, k;
    for (pass = 0; pass < 2; pass++) {
      ctx.beginPath();
      var open = false;
      for (k = 0; k < tx.length; k++) {
        if (pts[2 * k] === null) { open = false; continue; }
        if (!open || broken(k)) { ctx.moveTo(pts[2 * k], pts[2 * k + 1]); open = true; } else ctx.lineTo(pts[2 * k], pts[2 * k + 1]);
      }
      ctx.lineJoin = 'round';
      ctx.strokeStyle = pass === 0 ? 'rgba(255,255,255,0.8)' : TRACK;
      ctx.lineWidth = pass === 0 ? 3.5 : 1.6;
      ctx.stroke();
    }
  }
  function trackIndexAt(t) {
    var lo = 0, hi = tr.t.length - 1;
    if (hi < 0) return -1;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (tr.t[mid] < t) lo = mid + 1; else hi = mid; }
    if (lo > 0 && Math.abs(tr.t[lo - 1] - t) < Math.abs(tr.t[lo] - t)) lo--;
    return lo;
  }
  function inside(pts, x, y) {
    var c = false, n = pts.length / 2;
    for (var a = 0, b = n - 1; a < n; b = a++) {
      var xa = pts[2 * a], ya = pts[2 * a + 1], xb = pts[2 * b], yb = pts[2 * b + 1];
      if ((ya > y) !== (yb > y) && x < (xb - xa) * (y - ya) / (yb - ya) + xa) c = !c;
    }
    return c;
  }
  function tileAt(x, y) {
    for (var k = screenTiles.length - 1; k >= 0; k--) {
      var st = screenTiles[k], b = st.box;
      if (x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3] && inside(st.pts, x, y)) return st.t;
    }
    return null;
  }
  function segDist(px, py, ax, ay, bx, by) {
    var dx = bx - ax, dy = by - ay, l = dx * dx + dy * dy, u = l > 0 ? ((px - ax) * dx + (py - ay) * dy) / l : 0;
    if (u < 0) u = 0; if (u > 1) u = 1;
    var ex = ax + u * dx - px, ey = ay + u * dy - py;
    return Math.sqrt(ex * ex + ey * ey);
  }
  // For each tile large enough on screen: a pixel inside it, away from the track and not under another tile,
  // written into its row (data-probe-x/y, page pixels) for the browser test and for anyone checking the picture.
  function publishProbes() {
    var pts = trackScreen(), ox = mapRect.left, oy = mapRect.top;
    for (var k = 0; k < screenTiles.length; k++) {
      var st = screenTiles[k], row = rows[st.t.index], b = st.box;
      if (!row) continue;
      row.removeAttribute('data-probe-x'); row.removeAttribute('data-probe-y');
      if (b[2] - b[0] < 12) continue;
      var n = st.pts.length / 2, cxs = 0, cys = 0, m;
      for (m = 0; m < n; m++) { cxs += st.pts[2 * m]; cys += st.pts[2 * m + 1]; }
      cxs /= n; cys /= n;
      var cands = [[cxs, cys]];
      for (m = 0; m < n; m++) cands.push([cxs + 0.55 * (st.pts[2 * m] - cxs), cys + 0.55 * (st.pts[2 * m + 1] - cys)]);
      var best = null, bestD = -1;
      for (var c = 0; c < cands.length; c++) {
        var px = cands[c][0], py = cands[c][1];
        if (px < 2 || py < 2 || px > W - 2 || py > H - 2) continue;
        if (tileAt(px, py) !== st.t) continue;
        var d = Infinity;
        for (var q = 1; q < tx.length; q++) {
          if (pts[2 * q] === null || pts[2 * q - 2] === null) continue;
          var dd = segDist(px, py, pts[2 * q - 2], pts[2 * q - 1], pts[2 * q], pts[2 * q + 1]);
          if (dd < d) d = dd;
        }
        if (d > bestD) { bestD = d; best = cands[c]; }
      }
      if (best && bestD > 4) {
        row.setAttribute('data-probe-x', Math.round(best[0] + ox));
        row.setAttribute('data-probe-y', Math.round(best[1] + oy));
      }
    }
  }

  // ---- interaction ----
  var pointers = {}, dragMoved = false, lastPinch = null;
  function zoomAt(x, y, factor) {
    var wx = view.cx + (x - W / 2) / view.s, wy = view.cy - (y - H / 2) / view.s;
    view.s *= factor; clampView();
    view.cx = wx - (x - W / 2) / view.s; view.cy = wy + (y - H / 2) / view.s;
    clampView(); schedule();
  }
  function panBy(dx, dy) { view.cx -= dx / view.s; view.cy += dy / view.s; clampView(); schedule(); }
  var scheduled = false;
  function schedule() { if (scheduled) return; scheduled = true; raf(function () { scheduled = false; drawMap(); }); }
  function localXY(e) { var r = mapCanvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
  function showTip(x, y, lines) {
    if (!lines) { tip.style.display = 'none'; return; }
    tip.textContent = '';
    for (var k = 0; k < lines.length; k++) { if (k) tip.appendChild(el('br')); tip.appendChild(document.createTextNode(lines[k])); }
    tip.style.display = 'block';
    var tw = tip.offsetWidth, th = tip.offsetHeight;
    tip.style.left = Math.max(0, Math.min(W - tw, x + 14)) + 'px';
    tip.style.top = Math.max(0, Math.min(H - th, y + 14)) + 'px';
  }
  function tileLines(t) {
    var lines = ['H3 ' + t.h3 + ' · layer ' + t.layer + ' (' + (t.layer * 1000) + '–' + (t.layer * 1000 + 999) + ' ft)',
      NAMES[t.sev] + ' · EDR peak ' + fmt(t.peak, 3) + ' · median ' + fmt(t.median, 3)];
    if (t.t0 !== null && t.t0 !== undefined) lines.push(clock(t.t0) + ' – ' + clock(t.t1));
    if (t.info) lines.push(t.info);
    return lines;
  }
  function hover(x, y) {
    var t = tileAt(x, y);
    if (t !== hoverTile) { hoverTile = t; schedule(); }
    if (t) { showTip(x, y, tileLines(t)); return; }
    var pts = trackScreen(), best = -1, bd = 10;
    for (var k = 0; k < tx.length; k++) {
      if (pts[2 * k] === null) continue;
      var d = Math.abs(pts[2 * k] - x) + Math.abs(pts[2 * k + 1] - y);
      if (d < bd) { bd = d; best = k; }
    }
    if (best >= 0) {
      var lines = [clock(tr.t[best]) + ' · pressure altitude ' + Math.round(tr.alt[best]) + ' ft (layer ' + Math.floor(tr.alt[best] / 1000) + ')'];
      if (tr.gnss[best] !== null) lines.push('GNSS altitude ' + Math.round(tr.gnss[best]) + ' ft MSL');
      showTip(x, y, lines);
    } else showTip(0, 0, null);
  }
  if (ctx) {
    if (window.PointerEvent) {
      mapCanvas.addEventListener('pointerdown', function (e) {
        pointers[e.pointerId] = localXY(e); dragMoved = false;
        if (mapCanvas.setPointerCapture) try { mapCanvas.setPointerCapture(e.pointerId); } catch (ignored) { }
      });
      mapCanvas.addEventListener('pointermove', function (e) {
        var p = localXY(e), old = pointers[e.pointerId];
        if (!old) { if (e.pointerType === 'mouse') hover(p[0], p[1]); return; }
        var ids = Object.keys(pointers);
        if (ids.length === 1) {
          if (Math.abs(p[0] - old[0]) + Math.abs(p[1] - old[1]) > 2) dragMoved = true;
          panBy(p[0] - old[0], p[1] - old[1]);
        } else if (ids.length === 2) {
          var a = pointers[ids[0]], b = pointers[ids[1]];
          var before = Math.sqrt(Math.pow(a[0] - b[0], 2) + Math.pow(a[1] - b[1], 2));
          pointers[e.pointerId] = p; a = pointers[ids[0]]; b = pointers[ids[1]];
          var after = Math.sqrt(Math.pow(a[0] - b[0], 2) + Math.pow(a[1] - b[1], 2));
          if (before > 0 && after > 0) zoomAt((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, after / before);
          dragMoved = true;
        }
        pointers[e.pointerId] = p;
        showTip(0, 0, null);
      });
      var up = function (e) {
        var p = localXY(e);
        if (pointers[e.pointerId] && !dragMoved && e.pointerType !== 'mouse') hover(p[0], p[1]);
        delete pointers[e.pointerId];
      };
      mapCanvas.addEventListener('pointerup', up);
      mapCanvas.addEventListener('pointercancel', up);
    } else {
      var mouseAt = null, touchAt = null;
      mapCanvas.addEventListener('mousedown', function (e) { mouseAt = localXY(e); });
      window.addEventListener('mouseup', function () { mouseAt = null; });
      mapCanvas.addEventListener('mousemove', function (e) {
        var p = localXY(e);
        if (mouseAt) { panBy(p[0] - mouseAt[0], p[1] - mouseAt[1]); mouseAt = p; } else hover(p[0], p[1]);
      });
      mapCanvas.addEventListener('touchstart', function (e) {
        touchAt = []; for (var k = 0; k < e.touches.length; k++) touchAt.push(localXY(e.touches[k]));
        if (e.touches.length === 1) hover(touchAt[0][0], touchAt[0][1]);
        e.preventDefault();
      });
      mapCanvas.addEventListener('touchmove', function (e) {
        var now2 = []; for (var k = 0; k < e.touches.length; k++) now2.push(localXY(e.touches[k]));
        if (touchAt && now2.length === 1 && touchAt.length === 1) panBy(now2[0][0] - touchAt[0][0], now2[0][1] - touchAt[0][1]);
        if (touchAt && now2.length === 2 && touchAt.length === 2) {
          var d0 = Math.sqrt(Math.pow(touchAt[0][0] - touchAt[1][0], 2) + Math.pow(touchAt[0][1] - touchAt[1][1], 2));
          var d1 = Math.sqrt(Math.pow(now2[0][0] - now2[1][0], 2) + Math.pow(now2[0][1] - now2[1][1], 2));
          if (d0 > 0 && d1 > 0) zoomAt((now2[0][0] + now2[1][0]) / 2, (now2[0][1] + now2[1][1]) / 2, d1 / d0);
        }
        touchAt = now2; e.preventDefault();
      });
    }
    mapCanvas.addEventListener('mouseleave', function () { showTip(0, 0, null); if (hoverTile) { hoverTile = null; schedule(); } });
    mapCanvas.addEventListener('wheel', function (e) {
      var p = localXY(e), dy = e.deltaMode === 1 ? e.deltaY * 30 : e.deltaY;
      zoomAt(p[0], p[1], Math.exp(-dy * 0.0015)); e.preventDefault();
    }, { passive: false });
    mapCanvas.addEventListener('dblclick', function (e) { var p = localXY(e); zoomAt(p[0], p[1], 2); });
    document.getElementById('zoom-in').onclick = function () { zoomAt(W / 2, H / 2, 1.6); };
    document.getElementById('zoom-out').onclick = function () { zoomAt(W / 2, H / 2, 1 / 1.6); };
    document.getElementById('zoom-fit').onclick = function () { fitAll(); drawMap(); };
  }

  // ---- tile list and altitude filter ----
  var rows = [];
  function buildRows() {
  var tbody = document.getElementById('tile-rows'), frag = document.createDocumentFragment();
  for (var i = 0; i < tiles.length; i++) {
    var tt = tiles[i];
    var row = el('tr', { 'data-h3': tt.h3, 'data-layer': String(tt.layer), 'data-severity': tt.sevName, 'data-color': PAL[tt.sev],
                         'data-provenance': tt.prov || 'report' });
    var sw = el('td'); sw.appendChild(el('span', { 'class': 'sw', style: 'background:' + PAL[tt.sev] }));
    row.appendChild(sw);
    row.appendChild(el('td', null, tt.h3));
    row.appendChild(el('td', null, String(tt.layer)));
    row.appendChild(el('td', null, NAMES[tt.sev]));
    row.appendChild(el('td', null, fmt(tt.peak, 3)));
    row.appendChild(el('td', null, fmt(tt.median, 3)));
    row.appendChild(el('td', null, tt.t0 !== null && tt.t0 !== undefined ? clock(tt.t0) + ' – ' + clock(tt.t1) : '–'));
    row.appendChild(el('td', null, (tt.prov && PSTYLE[tt.prov] ? PSTYLE[tt.prov].label + (tt.info ? ' · ' : '') : '') + (tt.info || '')));
    (function (tile) { row.onclick = function () { focusTile(tile, true); }; })(tt);
    rows.push(row); frag.appendChild(row);
  }
  tbody.appendChild(frag);
  }
  function focusTile(t, scroll) {
    var rad = 0;
    for (var m = 0; m < t.xs.length; m++) rad = Math.max(rad, Math.sqrt(Math.pow(t.xs[m] - t.cx, 2) + Math.pow(t.ys[m] - t.cy, 2)));
    view.cx = t.cx; view.cy = t.cy; view.s = 90 / Math.max(rad, 1e-7);
    clampView(); drawMap(); publishProbes();
    if (scroll && mapCanvas.scrollIntoView) mapCanvas.scrollIntoView();
  }
  var minSel = document.getElementById('alt-min'), maxSel = document.getElementById('alt-max');
  function applyFilter() {
    var lo = minSel ? parseInt(minSel.value, 10) : -99, hi = maxSel ? parseInt(maxSel.value, 10) : 999, n = 0;
    for (var k = 0; k < tiles.length; k++) {
      var vis = tiles[k].layer >= lo && tiles[k].layer <= hi;
      tiles[k].visible = vis; if (vis) n++;
      if (!rows[k]) continue;
      if (vis) rows[k].removeAttribute('hidden'); else rows[k].setAttribute('hidden', 'hidden');
    }
    status.setAttribute('data-visible-tiles', String(n));
  }
  if (minSel && maxSel) {
    var layers = [], seen = {};
    for (i = 0; i < tiles.length; i++) if (!seen[tiles[i].layer]) { seen[tiles[i].layer] = 1; layers.push(tiles[i].layer); }
    layers.sort(function (a, b) { return a - b; });
    if (!layers.length) layers = [0];
    for (i = 0; i < layers.length; i++) {
      minSel.appendChild(el('option', { value: String(layers[i]) }, 'FL' + pad3(layers[i] * 10)));
      maxSel.appendChild(el('option', { value: String(layers[i]) }, 'FL' + pad3(layers[i] * 10 + 9)));
    }
    minSel.value = String(layers[0]); maxSel.value = String(layers[layers.length - 1]);
    var onChange = function () {
      if (parseInt(minSel.value, 10) > parseInt(maxSel.value, 10)) maxSel.value = minSel.value;
      applyFilter(); drawMap(); publishProbes();
    };
    minSel.onchange = onChange; maxSel.onchange = onChange;
  }
  function pad3(n) { return n < 0 ? String(n) : (n < 10 ? '00' : n < 100 ? '0' : '') + n; }
  applyFilter();

  // ---- charts ----
  var charts = [];
  var tMin = Infinity, tMax = -Infinity;
  function span(t) { if (t !== null && t !== undefined && isFinite(t)) { if (t < tMin) tMin = t; if (t > tMax) tMax = t; } }
  for (i = 0; i < tr.t.length; i++) span(tr.t[i]);
  for (i = 0; i < D.minutes.t.length; i++) { span(D.minutes.t[i] - 60); span(D.minutes.t[i]); }
  if (!(tMax > tMin)) { tMin = 0; tMax = 1; }
  function timeTicks(a, b, px) {
    var steps = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400], want = (b - a) / Math.max(2, px / 90), st = steps[steps.length - 1];
    for (var k = 0; k < steps.length; k++) if (steps[k] >= want) { st = steps[k]; break; }
    var out = [];
    for (var t = Math.ceil(a / st) * st; t <= b; t += st) out.push(t);
    return out;
  }
  function makeChart(id, yLabel, draw) {
    var c = document.getElementById(id);
    if (!c || !c.getContext) return;
    var chart = { c: c, g: c.getContext('2d'), draw: draw, yLabel: yLabel, L: 52, R: 12, T: 10, B: 22 };
    charts.push(chart);
    function move(e) {
      var r = c.getBoundingClientRect(), x = e.clientX - r.left;
      var t = tMin + (x - chart.L) / (chart.w - chart.L - chart.R) * (tMax - tMin);
      hoverT = (t >= tMin && t <= tMax) ? t : null;
      redrawCharts(); drawMap();
    }
    c.addEventListener('mousemove', move);
    c.addEventListener('touchstart', function (e) { if (e.touches.length) move(e.touches[0]); });
    c.addEventListener('mouseleave', function () { hoverT = null; redrawCharts(); drawMap(); });
  }
  function drawChart(ch) {
    var lay = layoutCanvas(ch.c), g = ch.g;
    ch.w = lay.w; ch.h = lay.h;
    g.setTransform(lay.dpr, 0, 0, lay.dpr, 0, 0);
    g.fillStyle = '#fff'; g.fillRect(0, 0, lay.w, lay.h);
    ch.X = function (t) { return ch.L + (t - tMin) / (tMax - tMin) * (lay.w - ch.L - ch.R); };
    ch.draw(ch, g);
    var ticks = timeTicks(tMin, tMax, lay.w - ch.L - ch.R);
    g.fillStyle = '#444'; g.font = '11px sans-serif'; g.textAlign = 'center'; g.textBaseline = 'top';
    for (var k = 0; k < ticks.length; k++) { var x = ch.X(ticks[k]); g.fillRect(x, lay.h - ch.B, 1, 4); g.fillText(shortClock(ticks[k]), x, lay.h - ch.B + 5); }
    g.strokeStyle = '#888'; g.lineWidth = 1; g.strokeRect(ch.L + 0.5, ch.T + 0.5, lay.w - ch.L - ch.R - 1, lay.h - ch.T - ch.B - 1);
    if (hoverT !== null) {
      var hx = ch.X(hoverT);
      g.fillStyle = '#d6336c'; g.fillRect(hx - 0.5, ch.T, 1.5, lay.h - ch.T - ch.B);
      if (ch.readout) { g.fillStyle = '#000'; g.textAlign = hx > lay.w / 2 ? 'right' : 'left'; g.textBaseline = 'top'; g.fillText(clock(hoverT) + '  ' + ch.readout(hoverT), hx + (hx > lay.w / 2 ? -6 : 6), ch.T + 2); }
    }
  }
  function yAxis(ch, g, y0, y1, step, unit) {
    ch.Y = function (v) { return ch.T + (1 - (v - y0) / (y1 - y0)) * (ch.h - ch.T - ch.B); };
    g.fillStyle = '#444'; g.font = '11px sans-serif'; g.textAlign = 'right'; g.textBaseline = 'middle';
    for (var v = Math.ceil(y0 / step) * step; v <= y1 + 1e-9; v += step) {
      var y = ch.Y(v); g.fillStyle = '#eee'; g.fillRect(ch.L, y, ch.w - ch.L - ch.R, 1);
      g.fillStyle = '#444'; g.fillText(unit(v), ch.L - 4, y);
    }
  }
  function niceStep(range, n) {
    var raw = range / n, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function polyline(g, ts, vs, X, Y, gap) {
    g.beginPath(); var open = false;
    for (var k = 0; k < ts.length; k++) {
      if (vs[k] === null || vs[k] === undefined) { open = false; continue; }
      if (!open || (gap && ts[k] - ts[k - 1] > gap)) { g.moveTo(X(ts[k]), Y(vs[k])); open = true; } else g.lineTo(X(ts[k]), Y(vs[k]));
    }
    g.stroke();
  }
  if (D.kind === 'flight') {
    makeChart('profile', 'ft', function (ch, g) {
      var lo = Infinity, hi = -Infinity, k;
      for (k = 0; k < tr.alt.length; k++) { lo = Math.min(lo, tr.alt[k]); hi = Math.max(hi, tr.alt[k]); if (tr.gnss[k] !== null) { lo = Math.min(lo, tr.gnss[k]); hi = Math.max(hi, tr.gnss[k]); } }
      for (k = 0; k < tiles.length; k++) { lo = Math.min(lo, tiles[k].layer * 1000); hi = Math.max(hi, tiles[k].layer * 1000 + 1000); }
      if (!(hi > lo)) { lo = 0; hi = 1000; }
      var y0 = Math.floor(lo / 1000) * 1000 - 1000, y1 = Math.ceil(hi / 1000) * 1000 + 1000;
      var step = Math.max(1000, Math.round(niceStep(y1 - y0, 5) / 1000) * 1000);
      yAxis(ch, g, y0, y1, step, function (v) { return (v / 1000) + 'k'; });
      var bandPx = (ch.Y(0) - ch.Y(1000));
      if (bandPx >= 3) for (var L = Math.floor(y0 / 1000); L < y1 / 1000; L++) if (L % 2 === 0) { g.fillStyle = 'rgba(60,90,140,0.06)'; g.fillRect(ch.L, ch.Y((L + 1) * 1000), ch.w - ch.L - ch.R, bandPx); }
      for (k = 0; k < tiles.length; k++) {
        var t = tiles[k];
        if (t.t0 === null || t.t0 === undefined) continue;
        g.fillStyle = PAL[t.sev];
        g.fillRect(ch.X(t.t0), ch.Y(t.layer * 1000 + 1000), Math.max(1.5, ch.X(t.t1) - ch.X(t.t0)), Math.max(2, bandPx));
      }
      g.lineWidth = 1.6; g.strokeStyle = TRACK; g.setLineDash && g.setLineDash([]);
      polyline(g, tr.t, tr.alt, ch.X, ch.Y, trackGap);
      if (D.hasGnss) { g.strokeStyle = '#e8590c'; g.lineWidth = 1.2; if (g.setLineDash) g.setLineDash([5, 3]); polyline(g, tr.t, tr.gnss, ch.X, ch.Y, trackGap); if (g.setLineDash) g.setLineDash([]); }
      ch.readout = function (t) { var k2 = trackIndexAt(t); if (k2 < 0) return ''; var s = 'pressure alt ' + Math.round(tr.alt[k2]) + ' ft, layer ' + Math.floor(tr.alt[k2] / 1000); if (tr.gnss[k2] !== null) s += ', GNSS ' + Math.round(tr.gnss[k2]) + ' ft MSL'; return s; };
    });
    makeChart('edr', 'EDR', function (ch, g) {
      var M = D.minutes, hi = D.thresholds[3] || 0.3, k;
      for (k = 0; k < M.t.length; k++) hi = Math.max(hi, M.peak[k]);
      for (k = 0; k < D.truth.length; k++) hi = Math.max(hi, D.truth[k][2]);
      hi *= 1.1;
      for (k = 0; k < D.oop.length; k++) { var a = ch.X(D.oop[k][0]), b = ch.X(D.oop[k][1]); g.fillStyle = 'rgba(120,120,120,0.25)'; g.fillRect(a, ch.T, Math.max(2, b - a), ch.h - ch.T - ch.B); }
      yAxis(ch, g, 0, hi, niceStep(hi, 4), function (v) { return v.toFixed(2); });
      for (k = 0; k < D.thresholds.length; k++) if (D.thresholds[k] <= hi) { g.fillStyle = PAL[k + 1]; g.fillRect(ch.L, ch.Y(D.thresholds[k]) - 0.5, ch.w - ch.L - ch.R, 1.5); }
      if (D.truth.length) {
        g.strokeStyle = '#2b8a3e'; g.lineWidth = 2.5; g.beginPath();
        for (k = 0; k < D.truth.length; k++) { var s = D.truth[k]; g.moveTo(ch.X(s[0]), ch.Y(s[2])); g.lineTo(ch.X(s[1]), ch.Y(s[2])); }
        g.stroke();
      }
      for (k = 0; k < M.t.length; k++) { var x = ch.X(M.t[k] - 30); g.fillStyle = PAL[M.sev[k]]; g.fillRect(x - 2, ch.Y(M.peak[k]) - 2, 4, 4); g.fillStyle = '#333'; g.fillRect(x - 0.5, ch.Y(M.peak[k]) + 2, 1, Math.max(0, ch.Y(M.median[k]) - ch.Y(M.peak[k]) - 2)); }
      var mt = []; for (k = 0; k < M.t.length; k++) mt.push(M.t[k] - 30);
      g.strokeStyle = '#1c3d5a'; g.lineWidth = 1.4; polyline(g, mt, M.median, ch.X, ch.Y, 90);
      ch.readout = function (t) {
        var best = -1, bd = 60;
        for (var q = 0; q < M.t.length; q++) { var d = Math.abs(M.t[q] - 30 - t); if (d <= bd) { bd = d; best = q; } }
        var s = best < 0 ? 'no minute' : 'median ' + M.median[best].toFixed(3) + ', peak ' + M.peak[best].toFixed(3) + ' (' + NAMES[M.sev[best]] + ')';
        for (var u = 0; u < D.truth.length; u++) if (t >= D.truth[u][0] && t < D.truth[u][1]) s += ', truth ' + D.truth[u][2].toFixed(2);
        for (u = 0; u < D.oop.length; u++) if (t >= D.oop[u][0] && t < D.oop[u][1]) s += ', out of position';
        return s;
      };
    });
  }
  function redrawCharts() { for (var k = 0; k < charts.length; k++) drawChart(charts[k]); }

  // ---- first render ----
  var mapRect = { left: 0, top: 0 };
  function layoutAll() { var lay = layoutCanvas(mapCanvas); W = lay.w; H = lay.h; dpr = lay.dpr; mapRect = mapCanvas.getBoundingClientRect(); }
  layoutAll();
  fitAll();
  var focus = /#tile=([0-9a-f]+)@(-?[0-9]+)/.exec(window.location.hash || '');
  var focused = null;
  if (focus) for (i = 0; i < tiles.length; i++) if (tiles[i].h3 === focus[1] && String(tiles[i].layer) === focus[2]) focused = tiles[i];
  drawMap(); redrawCharts();
  buildRows(); applyFilter();
  if (focused) focusTile(focused, false); else publishProbes();
  window.addEventListener('resize', function () { layoutAll(); drawMap(); redrawCharts(); });
  status.setAttribute('data-tiles', String(tiles.length));
  var nowcastTiles = 0; for (i = 0; i < tiles.length; i++) if (tiles[i].prov) nowcastTiles++;
  status.setAttribute('data-nowcast-tiles', String(nowcastTiles));
  status.setAttribute('data-track-points', String(tn));
  status.setAttribute('data-minutes', String(D.minutes.t.length));
  status.setAttribute('data-viewport', window.innerWidth + 'x' + window.innerHeight);
  status.setAttribute('data-render-ms', now().toFixed(1));
  status.setAttribute('data-state', 'rendered');
  // The first frame after the render (style, layout and paint done): the time a person waits to see the page.
  raf(function () { setTimeout(function () { status.setAttribute('data-frame-ms', now().toFixed(1)); }, 0); });
  status.textContent = tiles.length + ' tiles · ' + tn + ' track points · rendered in ' + Math.round(now()) + ' ms';
})();
"""#
}
