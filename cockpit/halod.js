/* SPDX-License-Identifier: MIT */
/* halod's Cockpit page: reads io.halod1.Node on the system bus through cockpit.dbus, re-renders on
 * PropertiesChanged (the proxy's "changed" event; nothing polls), and calls Verify() and Apply() with
 * Cockpit's administrative access when the user has it (superuser: "try"). The D-Bus API is
 * io.halod1(5); the rows it builds are those of haloctl status (daemon/haloctl/haloctl-bus.c). Every string
 * goes through cockpit.gettext and the HTML's translate attributes: a po.LANG.js beside the page,
 * which the bridge serves as po.js, would translate it (there is none yet; po.js is then empty). */
"use strict";

const _ = cockpit.gettext;
const BUS_NAME = "io.halod1";
const OBJECT_PATH = "/io/halod1";
const INTERFACE = "io.halod1.Node";
const OUTCOME_ORDER = { fail: 0, warn: 1, pass: 2, skip: 3 };

let client = null;
let proxy = null;

function $(id) {
    return document.getElementById(id);
}

/* A table cell holding text: never HTML, since every string comes from the host. */
function cell(text, className) {
    const td = document.createElement("td");
    td.textContent = text === undefined || text === null ? "" : String(text);
    if (className)
        td.className = className;
    return td;
}

function statusLabel(outcome, text) {
    const span = document.createElement("span");
    span.className = "halod-status";
    span.dataset.status = outcome;
    span.textContent = text;
    return span;
}

function outcomeText(outcome) {
    return { pass: _("pass"), warn: _("warning"), fail: _("failed"), skip: _("skipped") }[outcome] || outcome;
}

/* Checks as objects, failed and warning first, the daemon's order kept within each outcome. */
function sortedChecks(raw) {
    return (raw || [])
        .map((c, index) => ({ id: c[0], outcome: c[1], summary: c[2], expected: c[3], actual: c[4], index }))
        .sort((a, b) => ((OUTCOME_ORDER[a.outcome] ?? 4) - (OUTCOME_ORDER[b.outcome] ?? 4)) || (a.index - b.index));
}

function checkById(checks, id) {
    return checks.find(c => c.id === id);
}

/* The peer's own health, as its answer carried it: peer.<node>.reachable's actual value is
 * "<node> of cluster <cluster> (<health>)" (lib/check/check-peer-reachable.c). */
function peerHealth(checks, node) {
    const c = checkById(checks, "peer." + node + ".reachable");
    const m = c && /\((starting|healthy|degraded|failed)\)$/.exec(c.actual || "");
    return m ? m[1] : null;
}

function renderNode() {
    const health = proxy.Health || "";
    $("node-name").textContent = proxy.Node || "";
    $("health").dataset.health = health;
    $("health-text").textContent = health ? _(health) : _("unknown");
    $("summary").textContent = proxy.Summary || "";
    $("cluster").textContent = proxy.Cluster || "";
    $("mode").textContent = proxy.Mode || "";
    $("backend").textContent = proxy.Backend ? proxy.Backend + " (" + (proxy.BackendReason || "") + ")" : "";
    const usec = Number(proxy.LastVerifyUSec || 0);
    $("last-verify").textContent = usec > 0 ? new Date(usec / 1000).toLocaleString() : _("never");
}

/* PendingReboot: (check, what) for each thing a reboot would bring into force; the notice shows
 * only while there is one. */
function renderReboot() {
    const pending = proxy.PendingReboot || [];
    const list = $("reboot-list");
    list.replaceChildren(...pending.map(([check, what]) => {
        const li = document.createElement("li");
        li.dataset.check = check;
        li.textContent = what + " (" + check + ")";
        return li;
    }));
    $("reboot").hidden = pending.length === 0;
}

function renderPeers(checks) {
    const body = $("peers").tBodies[0];
    const rows = (proxy.Peers || []).map(p => {
        const [node, address, reachable, median, p99] = p;
        const tr = document.createElement("tr");
        tr.dataset.node = node;
        tr.dataset.outcome = reachable ? "pass" : "fail";
        tr.appendChild(cell(node, "halod-id"));
        tr.appendChild(cell(address));
        const reach = document.createElement("td");
        reach.appendChild(statusLabel(reachable ? "pass" : "fail", reachable ? _("reachable") : _("not answering")));
        tr.appendChild(reach);
        tr.appendChild(cell(reachable ? cockpit.format(_("$0 µs / $1 µs"), median, p99) : "—"));
        const rdma = checkById(checks, "peer." + node + ".rdma");
        const rdmaCell = document.createElement("td");
        if (rdma) {
            rdmaCell.appendChild(statusLabel(rdma.outcome, outcomeText(rdma.outcome)));
            rdmaCell.appendChild(document.createTextNode(" " + rdma.summary));
        } else {
            rdmaCell.textContent = "—";
        }
        tr.appendChild(rdmaCell);
        const health = peerHealth(checks, node);
        const healthCell = document.createElement("td");
        if (health) {
            const span = statusLabel("", _(health));
            span.removeAttribute("data-status");
            span.dataset.health = health;
            healthCell.appendChild(span);
        } else {
            healthCell.textContent = _("unknown");
        }
        tr.appendChild(healthCell);
        return tr;
    });
    body.replaceChildren(...rows);
    $("peers-empty").hidden = rows.length > 0;
}

/* fabric.<node>.transport: actual is the verdict (idle, rdma, tcp-bulk, fallback, cannot-tell), summary the
 * volumes and the QP holders (halod(8), FABRIC USE). */
function renderFabric(checks) {
    const rows = checks
        .filter(c => /^fabric\.[^.]+\.transport$/.test(c.id))
        .map(c => {
            const tr = document.createElement("tr");
            tr.dataset.outcome = c.outcome;
            tr.appendChild(cell(c.id.slice("fabric.".length, -".transport".length), "halod-id"));
            tr.appendChild(cell(c.actual === "fallback" ? _("fallback to TCP") : (c.actual || "—")));
            const status = document.createElement("td");
            status.appendChild(statusLabel(c.outcome, outcomeText(c.outcome)));
            tr.appendChild(status);
            tr.appendChild(cell(c.summary));
            return tr;
        });
    $("fabric").tBodies[0].replaceChildren(...rows);
    $("fabric-empty").hidden = rows.length > 0;
}

function renderChecks(checks) {
    const words = $("filter").value.trim().toLowerCase().split(/\s+/).filter(w => w);
    const shown = checks.filter(c => {
        const text = [c.id, c.outcome, outcomeText(c.outcome), c.summary, c.expected, c.actual].join(" ").toLowerCase();
        return words.every(w => text.includes(w));
    });
    const rows = shown.map(c => {
        const tr = document.createElement("tr");
        tr.dataset.id = c.id;
        tr.dataset.outcome = c.outcome;
        const status = document.createElement("td");
        status.appendChild(statusLabel(c.outcome, outcomeText(c.outcome)));
        tr.appendChild(status);
        tr.appendChild(cell(c.id, "halod-id"));
        tr.appendChild(cell(c.summary));
        tr.appendChild(cell(c.expected));
        tr.appendChild(cell(c.actual));
        return tr;
    });
    $("checks").tBodies[0].replaceChildren(...rows);
    $("checks-count").textContent = cockpit.format(_("$0 of $1"), shown.length, checks.length);
}

function render() {
    if (!proxy || !proxy.valid)
        return;
    const checks = sortedChecks(proxy.Checks);
    renderNode();
    renderReboot();
    renderPeers(checks);
    renderFabric(checks);
    renderChecks(checks);
    $("halod").dataset.state = "ready";
}

function showMessage(kind, title, text) {
    const box = $("message");
    box.dataset.kind = kind;
    box.classList.remove("pf-m-danger", "pf-m-success", "pf-m-info");
    box.classList.add("pf-m-" + kind);
    $("message-title").textContent = title;
    $("message-text").textContent = text || "";
    box.hidden = false;
}

function showUnavailable(why) {
    $("halod").dataset.state = "unavailable";
    $("health").dataset.health = "";
    $("health-text").textContent = _("not running");
    showMessage("danger", _("halod is not on the system bus"),
                cockpit.format(_("$0. Start it with systemctl start halod, and see its journal."), why));
}

/* Verify() or Apply(), with administrative access when Cockpit has it; a refusal says what to do. */
function callMethod(method) {
    const buttons = [$("verify"), $("apply")];
    const admin = cockpit.dbus(BUS_NAME, { bus: "system", superuser: "try" });

    buttons.forEach(b => { b.disabled = true });
    showMessage("info", cockpit.format(_("$0 running…"), method), "");
    admin.call(OBJECT_PATH, INTERFACE, method, [], { timeout: 60000 })
            .then(reply => {
                showMessage("success", cockpit.format(_("$0 done"), method),
                            method === "Verify" ? reply[0] : proxy.Summary);
            })
            .catch(ex => {
                if (ex.name === "org.freedesktop.DBus.Error.AccessDenied")
                    showMessage("danger", cockpit.format(_("Not permitted to run $0"), method),
                                cockpit.format(_("halod refused: $0. Turn on administrative access in Cockpit's top bar, or have an administrator grant the polkit action io.halod1.manage (see io.halod1(5))."), ex.message));
                else if (ex.name === "io.halod1.Error.VerifyMode")
                    showMessage("danger", _("The profile says mode: verify"), ex.message);
                else
                    showMessage("danger", cockpit.format(_("$0 failed"), method), ex.name ? ex.name + ": " + ex.message : String(ex.message || ex));
            })
            .finally(() => {
                buttons.forEach(b => { b.disabled = false });
                admin.close();
            });
}

function showManPage(event) {
    event.preventDefault();
    const [section, page] = event.currentTarget.dataset.man.split(" ");
    $("man-title").textContent = page + "(" + section + ")";
    $("man-text").textContent = _("loading");
    $("man-view").hidden = false;
    cockpit.spawn(["man", "-P", "cat", section, page], { environ: ["MANWIDTH=100", "MAN_KEEP_FORMATTING=0"], err: "message" })
            .then(text => { $("man-text").textContent = text })
            .catch(ex => {
                $("man-text").textContent = cockpit.format(_("man $0 $1 failed: $2"), section, page, ex.message || String(ex));
            });
}

function connect() {
    client = cockpit.dbus(BUS_NAME, { bus: "system" });
    proxy = client.proxy(INTERFACE, OBJECT_PATH);
    proxy.addEventListener("changed", render);
    client.addEventListener("owner", (event, owner) => {
        if (owner === null)
            showUnavailable(_("io.halod1 has no owner"));
        else
            $("message").hidden = true;
    });
    client.addEventListener("close", (event, options) => showUnavailable(cockpit.message(options)));
    proxy.wait().then(() => {
        if (proxy.valid)
            render();
        else
            showUnavailable(_("io.halod1 does not answer on /io/halod1"));
    });
}

function init() {
    cockpit.translate();
    $("verify").addEventListener("click", () => callMethod("Verify"));
    $("apply").addEventListener("click", () => callMethod("Apply"));
    $("filter").addEventListener("input", render);
    $("journal-link").addEventListener("click", event => {
        event.preventDefault();
        cockpit.jump("/system/logs/#/?prio=debug&service=halod.service");
    });
    document.querySelectorAll(".halod-man").forEach(a => a.addEventListener("click", showManPage));
    $("man-close").addEventListener("click", () => { $("man-view").hidden = true });
    connect();
}

document.addEventListener("DOMContentLoaded", init);
