// The HTML report's page assets: its style sheet and its one inline script,
// with the script's hash for the page's Content-Security-Policy (html.ts), which
// allows that script alone, so even an escaping slip could not run injected
// script.
import { createHash } from "node:crypto";

export const STYLE = `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:16px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}h3{font-size:15px;margin:20px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;width:100%}th,td{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f6f8fa}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
.meta{color:#57606a}.cert td.num{text-align:right;font-variant-numeric:tabular-nums}
.st-pass{background:#d1f5d3}.st-fail{background:#ffc9c9}.st-unexpected-pass{background:#ff9bb0}.st-expected-fail{background:#ffe2b3}
.st-not-available{background:#eaeef2;color:#57606a}.st-precondition-failed{background:#fff5b1}.st-manual{background:#cfe6ff}
.st-inconclusive{background:#e5d4ff}.st-unsupported{background:#ffd8b5;color:#7a2e00}.st-error{background:#3b3b3b;color:#fff}.st-not-run{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#f3f3f3 4px,#f3f3f3 8px);color:#57606a}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;white-space:nowrap}.cert th .badge{white-space:normal}
details>summary{cursor:pointer}details[open]>summary{margin-bottom:4px}
td.cell{min-width:120px}.subs{margin-top:3px}details.sub{display:inline-block;vertical-align:top;margin:1px 0}details.sub[open]{display:block;margin:4px 0}
details.sub>summary{list-style:none}details.sub>summary::-webkit-details-marker{display:none}details.sub>summary .badge{border:1px solid rgba(0,0,0,.15)}.ev{font-size:12px;margin:4px 0}.ev td,.ev th{padding:2px 4px}
.msg{white-space:pre-wrap;word-break:break-word;margin:4px 0}.legend span{margin-right:6px}
body.only-failures .ok{display:none}
.bar{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #d0d7de;z-index:1}
`;

// The only script: the "failures only" filter and "open all" toggle (and a
// mark that it ran, which the self-test looks for: the CSP hash is right).
export const SCRIPT = `
document.body.setAttribute("data-script","ran");
document.getElementById("only-failures").addEventListener("change",function(e){document.body.classList.toggle("only-failures",e.target.checked)});
document.getElementById("open-all").addEventListener("change",function(e){document.querySelectorAll("details").forEach(function(d){d.open=e.target.checked})});
`;
export const SCRIPT_HASH = createHash("sha256").update(SCRIPT).digest("base64");
