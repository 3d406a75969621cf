/*
 * report_page.c — the frame of the report page: <head> with the inline
 * style sheet and script, the header with the section list and the rank
 * picker, and the status line the browser test reads.
 *
 * The page must open from disk with no network, so style and script are
 * inline and small.  The script: records script errors into the page
 * (window.onerror → #kt-errors) so a headless browser can see them, puts
 * the full names of #kt-names on the elements that refer to them
 * (data-k), shows the picked rank's panels, sorts tables on a header click, and finally
 * writes #kt-status: how many sections there are and which have no chart
 * with drawn data marks.
 */
#include "output/report_html.h"

static const char page_css[] =
    "*{box-sizing:border-box}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2933;"
    "background:#f3f5f8}"
    "header{position:sticky;top:0;z-index:2;background:#1f2d3d;color:#fff;padding:10px 24px;"
    "display:flex;flex-wrap:wrap;align-items:center;gap:6px 18px;box-shadow:0 1px 4px #0003}"
    "header h1{font-size:18px;margin:0 12px 0 0}header .sub{color:#b8c4d0;font-size:12px}"
    "header nav{display:flex;flex-wrap:wrap;gap:4px}"
    "header nav a{color:#dfe7ef;text-decoration:none;font-size:12px;padding:2px 8px;border-radius:10px;"
    "background:#ffffff14}header nav a:hover{background:#ffffff33}"
    "header label{font-size:13px;margin-left:auto}header select{font-size:13px;margin-left:6px}"
    "main{max-width:1280px;margin:0 auto;padding:16px 24px 40px}"
    "section{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;margin:16px 0;padding:14px 20px}"
    "section h2{font-size:17px;margin:0 0 4px}section p.intro{color:#52606d;margin:0 0 10px;font-size:13px}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px 20px;align-items:flex-start}"
    "figure.chart{margin:0}figure.chart svg{display:block;max-width:100%;height:auto}"
    "svg text{font:11px system-ui,sans-serif;fill:#3e4c59}svg .title{font-size:13px;font-weight:600;fill:#1f2933}"
    "svg .axis{stroke:#9aa5b1;stroke-width:1}svg .grid{stroke:#e4e7eb;stroke-width:1}"
    "svg .mark:hover{opacity:.75}"
    "p.note{color:#7b8794;font-style:italic;margin:6px 0}"
    ".rank-panel{display:none}.rank-panel.shown{display:block}"
    "h3{font-size:14px;margin:12px 0 6px;color:#323f4b}"
    ".tablewrap{max-height:420px;overflow:auto;margin:8px 0;border:1px solid #e4e7eb;border-radius:6px}"
    "table{border-collapse:collapse;width:100%;font-size:12.5px}"
    "caption{text-align:left;font-weight:600;padding:6px 8px;color:#323f4b}"
    "th{position:sticky;top:0;background:#eef2f6;text-align:left;padding:5px 8px;cursor:pointer;"
    "white-space:nowrap;user-select:none}th:hover{background:#dde4ec}"
    "th.asc::after{content:' \\25B2'}th.desc::after{content:' \\25BC'}"
    "td{padding:4px 8px;border-top:1px solid #eef0f3;white-space:nowrap}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}tr:hover td{background:#f7f9fb}"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}"
    "dl.facts dt{color:#616e7c}dl.facts dd{margin:0}"
    "#kt-status,#kt-errors{font-size:11px;color:#9aa5b1;margin:0 24px 12px}"
    "footer{text-align:center;color:#9aa5b1;font-size:11px;padding:8px}";

static const char page_js[] =
    "(function(){"
    "var errs=[];"
    "window.onerror=function(m,s,l){errs.push(m+' (line '+l+')');show();};"
    "function show(){var e=document.getElementById('kt-errors');"
    "if(e){e.setAttribute('data-errors',errs.length);e.textContent=errs.length?'script errors: '+errs.join('; '):'';}}"
    "function pick(r){document.querySelectorAll('.rank-panel').forEach(function(p){"
    "p.classList.toggle('shown',p.getAttribute('data-rank')===r);});}"
    "function names(){var n=document.getElementById('kt-names'),l=n?JSON.parse(n.textContent):[];"
    "document.querySelectorAll('[data-k]').forEach(function(e){var s=l[+e.getAttribute('data-k')];"
    "if(s===undefined)return;if(e instanceof SVGElement){var t=e.querySelector('title');"
    "if(!t){t=document.createElementNS('http://www.w3.org/2000/svg','title');e.appendChild(t);}"
    "t.textContent=s+t.textContent;}else e.title=s;});}"
    "function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent:parseFloat(v);}"
    "function sortBy(th){var tb=th.closest('table').tBodies[0],i=th.cellIndex,"
    "d=th.classList.contains('desc')?1:-1;"
    "th.parentNode.querySelectorAll('th').forEach(function(o){o.classList.remove('asc','desc');});"
    "th.classList.add(d>0?'asc':'desc');"
    "var rows=Array.prototype.slice.call(tb.rows);rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);"
    "if(typeof x==='number'&&typeof y==='number'){if(isNaN(x))return 1;if(isNaN(y))return -1;return d*(x-y);}"
    "return d*String(x).localeCompare(String(y));});"
    "rows.forEach(function(r){tb.appendChild(r);});}"
    "function check(){var secs=document.querySelectorAll('main>section'),empty=[],charts=0;"
    "secs.forEach(function(s){var ok=false;s.querySelectorAll('figure.chart').forEach(function(f){"
    "charts++;if(+f.getAttribute('data-n')>0&&f.querySelectorAll('svg .mark').length>0)ok=true;});"
    "if(!ok)empty.push(s.id);});"
    "var st=document.getElementById('kt-status');st.setAttribute('data-sections',secs.length);"
    "st.setAttribute('data-charts',charts);st.setAttribute('data-empty',empty.join(' '));"
    "st.setAttribute('data-errors',errs.length);"
    "st.textContent=(empty.length||errs.length?'check failed':'ok')+': '+secs.length+' sections, '+charts+"
    "' charts'+(empty.length?', without data: '+empty.join(' '):'');"
    "st.className='done';}"
    "document.addEventListener('DOMContentLoaded',function(){"
    "var sel=document.getElementById('rank-pick');"
    "if(sel){sel.addEventListener('change',function(){pick(sel.value);});pick(sel.value);}"
    "else{document.querySelectorAll('.rank-panel').forEach(function(p){p.classList.add('shown');});}"
    "document.querySelectorAll('th').forEach(function(th){th.title='click to sort';"
    "th.addEventListener('click',function(){sortBy(th);});});"
    "names();show();check();});"
    "})();";

void rp_page_begin(rp_html *h, const char *title, const char *subtitle)
{
    rp_raw(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>");
    rp_text(h, title);
    rp_raw(h, "</title>\n<style>");
    rp_raw(h, page_css);
    rp_raw(h, "</style>\n<script>");
    rp_raw(h, page_js);
    rp_raw(h, "</script>\n</head><body>\n<header><h1>");
    rp_text(h, title);
    rp_raw(h, "</h1><span class=\"sub\">");
    rp_text(h, subtitle);
    rp_raw(h, "</span>\n");
}

void rp_page_end(rp_html *h)
{
    rp_raw(h, "</main>\n");
    rp_names_write(h);
    rp_raw(h, "<div id=\"kt-errors\" data-errors=\"0\"></div>"
              "<div id=\"kt-status\">script did not run</div>\n<footer>kineta " KINETA_VERSION
              " — self-contained report, no network needed</footer>\n</body></html>\n");
}

void rp_nav_begin(rp_html *h)
{
    rp_raw(h, "<nav>");
}

void rp_nav_link(rp_html *h, const char *id, const char *title)
{
    rp_raw(h, "<a href=\"#");
    rp_text(h, id);
    rp_raw(h, "\">");
    rp_text(h, title);
    rp_raw(h, "</a>");
}

void rp_nav_end(rp_html *h)
{
    rp_raw(h, "</nav>\n");
}

void rp_rank_picker(rp_html *h, const int *ranks, size_t n)
{
    if (n > 1) {
        rp_raw(h, "<label>rank <select id=\"rank-pick\">");
        for (size_t i = 0; i < n; i++) rp_printf(h, "<option value=\"%d\">%d</option>", ranks[i], ranks[i]);
        rp_raw(h, "</select></label>");
    }
    rp_raw(h, "</header>\n<main>\n");
}
