/// The page's stylesheet, script (MapScript.swift) and error capture (docs/maps.md). Plain ES5 JavaScript and CSS that a tablet's
/// browser of several years ago runs (Pointer Events with a mouse/touch fallback, no modules, no network).
enum MapAssets {
    /// The stylesheet.
    static let css = #"""
html,body{margin:0;padding:0;font:14px/1.4 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2733;background:#fafafa}
header{padding:8px 12px 4px}h1{font-size:18px;margin:0}h2{font-size:14px;margin:10px 12px 2px}
.sub{margin:2px 0 0;color:#555}
.mapbox{position:relative;margin:0 12px;height:62vh;min-height:300px;border:1px solid #bbb;background:#dbe7f3}
#map{display:block;width:100%;height:100%;touch-action:none;cursor:grab;-webkit-user-select:none;user-select:none}
#tip{position:absolute;display:none;pointer-events:none;background:rgba(255,255,255,.96);border:1px solid #888;border-radius:4px;padding:4px 7px;font-size:12px;white-space:nowrap;box-shadow:0 1px 4px rgba(0,0,0,.25)}
.zoom{position:absolute;right:8px;top:8px}
.zoom button{display:block;width:40px;height:40px;margin:0 0 6px;font-size:20px;border:1px solid #888;border-radius:6px;background:#fff;color:#1d2733}
.chart{display:block;margin:0 12px;width:calc(100% - 24px);height:180px;border:1px solid #ddd;background:#fff;touch-action:pan-y}
.key{margin:4px 12px;font-size:12px;color:#333}
.sw{display:inline-block;width:14px;height:14px;border:1px solid rgba(0,0,0,.35);vertical-align:-3px;margin:0 4px 0 8px}
.ln{display:inline-block;width:22px;height:2px;vertical-align:3px;margin:0 4px 0 8px}
.ln.dash{background:repeating-linear-gradient(90deg,#e8590c 0 5px,transparent 5px 8px)}
.pk{display:inline-block;width:6px;height:6px;background:#f76707;margin:0 4px 0 8px;vertical-align:1px}
.oop{display:inline-block;width:16px;height:12px;background:rgba(120,120,120,.35);margin:0 4px 0 8px;vertical-align:-2px}
.band{display:inline-block;width:16px;height:12px;background:rgba(60,90,140,.12);margin:0 4px 0 8px;vertical-align:-2px}
.filter{margin:4px 12px 6px}.filter select{font-size:15px;padding:3px}
details{margin:10px 12px}.tablebox{max-height:320px;overflow:auto;content-visibility:auto;contain-intrinsic-size:auto 320px}
table{border-collapse:collapse;font-size:12px}th,td{padding:2px 6px;border-bottom:1px solid #e5e5e5;text-align:left}
tbody tr{cursor:pointer}tbody tr:hover{background:#eef3f8}
footer{margin:8px 12px 16px;font-size:11px;color:#666}
#eddy-errors{margin:6px 12px;padding:6px;background:#ffe3e3;color:#900;white-space:pre-wrap}
"""#

    /// Runs first: records `window.onerror` and `console.error` into `#eddy-errors` and `#eddy-status[data-errors]`.
    static let errorCapture = #"""
window.eddyStart=Date.now();window.eddyErrors=[];
window.eddyRecord=function(m){window.eddyErrors.push(String(m));var b=document.getElementById('eddy-errors');if(b){b.textContent=window.eddyErrors.join('\n');b.removeAttribute('hidden');}var s=document.getElementById('eddy-status');if(s){s.setAttribute('data-errors',String(window.eddyErrors.length));}};
window.onerror=function(m,src,line){window.eddyRecord(m+' (line '+line+')');return false;};
(function(){var c=window.console;if(!c){return;}var e=c.error;c.error=function(){window.eddyRecord(Array.prototype.join.call(arguments,' '));if(e&&e.apply){e.apply(c,arguments);}};})();
window.addEventListener('load',function(){var s=document.getElementById('eddy-status');if(s){s.setAttribute('data-errors',String(window.eddyErrors.length));s.setAttribute('data-loaded','1');}});
"""#
}
