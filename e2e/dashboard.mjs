// The dashboard in a real browser: sign up, generate a key, reload (no second key), make an API request with it, see the
// usage appear, revoke the key, see the next request refused; plus the docs and the catalogue.
//
// Run by e2e/dashboard_test.go against a fresh `asa serve`:
//   ASA_BASE=http://127.0.0.1:PORT ASA_ARTIFACTS=e2e/artifacts node e2e/dashboard.mjs
// Debian's chromium (CHROMIUM, default /usr/bin/chromium) is driven by playwright-core; nothing is
// downloaded. Screenshots of every step go to ASA_ARTIFACTS.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const base = process.env.ASA_BASE;
const artifacts = process.env.ASA_ARTIFACTS || "artifacts";
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const email = process.env.ASA_EMAIL || `e2e-${Date.now()}@example.com`;
const password = process.env.ASA_PASSWORD || "e2e correct horse battery";
if (!base) {
  console.error("ASA_BASE is required");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

let step = 0;
function log(msg, extra) {
  console.log(JSON.stringify({ step, msg, ...extra }));
}
function check(cond, msg) {
  if (!cond) throw new Error("check failed: " + msg);
}
async function shot(page, name, fullPage = true) {
  step++;
  const file = join(artifacts, `${String(step).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage });
  log("screenshot", { file });
}
async function api(key) {
  const r = await fetch(`${base}/api/v1/amazon/product?query=B0TEST1234&api_key=${encodeURIComponent(key)}`);
  const body = await r.json();
  return { status: r.status, body, cost: r.headers.get("asa-cost"), version: r.headers.get("asa-extractor-version") };
}

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
  ],
});
let page;
const consoleErrors = [];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  page = await context.newPage();
  page.setDefaultTimeout(20000);
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));

  // 1. Sign up.
  await page.goto(`${base}/dashboard`);
  check(page.url().includes("/dashboard/signin"), "an anonymous visit goes to sign-in: " + page.url());
  await page.click("header >> text=Sign up");
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await page.fill('input[name="password_confirm"]', password);
  await shot(page, "signup-form");
  await Promise.all([page.waitForURL("**/dashboard/keys?welcome=1"), page.click('form[data-testid="signup-form"] button[type="submit"]')]);
  check((await page.textContent('[data-testid="user-email"]')).trim() === email.toLowerCase(), "signed in as " + email);
  await shot(page, "signed-up");
  log("signed up", { email });

  // The workspace: free plan, nothing used.
  await page.click('nav >> text=Workspace');
  check((await page.textContent('[data-testid="plan"]')).trim() === "free", "free plan");
  check((await page.textContent('[data-testid="credits-left"]')).trim() === "5000", "5000 credits left");
  await shot(page, "workspace");

  // 2. Generate a sandbox key: shown once, with a copy button.
  await page.click('nav >> text=API keys');
  await page.selectOption('[data-testid="key-mode"]', "sandbox");
  await page.click('[data-testid="generate-key"]');
  const key = (await page.textContent('[data-testid="new-key"]')).trim();
  check(/^asa_test_[A-Za-z0-9]{36}$/.test(key), "a sandbox key is shown: " + key);
  await page.click('[data-testid="copy-key"]');
  await page.waitForSelector('[data-testid="copy-key"][data-copied]');
  const copied = await page.getAttribute('[data-testid="copy-key"]', "data-copied");
  let clip = "";
  try { clip = await page.evaluate(() => navigator.clipboard.readText()); } catch (e) { log("clipboard not readable", { err: String(e) }); }
  check(copied === "true", "the copy button copied");
  if (clip) check(clip === key, "the clipboard holds the key");
  const short = key.slice("asa_test_".length, "asa_test_".length + 12);
  check(await page.isVisible(`tr[data-key="${short}"]`), "the key is listed by its short prefix");
  await shot(page, "key-generated");
  // Reloading the answer re-sends the form: it creates no second key and says so.
  const reloaded = await page.reload();
  check(reloaded.status() === 200, "a reload of the generated key answers 200: " + reloaded.status());
  check((await page.content()).includes("This form was already submitted"), "a reload shows the already-submitted notice");
  check(!(await page.content()).includes(key), "a reload does not show the key again");
  check(await page.isVisible(`tr[data-key="${short}"][data-testid="resent-key"]`), "a reload marks the key the form created");
  check((await page.locator('[data-testid="keys-table"] tbody tr[data-key]').count()) === 1, "a reload creates no key");
  await page.goto(`${base}/dashboard/keys`);
  check(!(await page.content()).includes(key), "the full key is not shown again");
  log("key generated", { short });

  // 3. An API request with the key, answered by the sandbox.
  const ok = await api(key);
  check(ok.status === 200, "the request is answered: " + ok.status + " " + JSON.stringify(ok.body).slice(0, 200));
  check(typeof ok.body.title === "string" && ok.body.title.length > 0, "a product with a title");
  check(ok.cost === "0", "sandbox requests are free");
  log("api request", { status: ok.status, title: ok.body.title, version: ok.version });

  // 4. The usage appears.
  await page.click('nav >> text=Usage');
  const row = page.locator('tr[data-endpoint="amazon.product"]');
  check((await row.locator('[data-testid="requests"]').textContent()).trim() === "1", "usage shows one amazon.product request");
  check(await page.isVisible('[data-testid="usage-chart"] g[data-requests="1"]'), "the chart has today's bar");
  // Filter by the key (the select submits itself).
  await Promise.all([page.waitForURL(`**/dashboard/usage?key=${short}*`), page.selectOption('[data-testid="usage-key"]', short)]);
  check((await page.textContent('[data-testid="total-requests"]')).trim() === "1", "the key's filter shows its request");
  await shot(page, "usage");
  const lastUsed = async () => (await page.locator(`tr[data-key="${short}"] [data-testid="last-used"]`).textContent()).trim();
  await page.click('nav >> text=API keys');
  check((await lastUsed()) !== "never", "last used is set");

  // A batch with the key: listed with its status and progress, openable to its items.
  const cr = await fetch(`${base}/api/v1/amazon/batch?api_key=${encodeURIComponent(key)}`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ endpoint: "amazon.product", items: [{ query: "B0TEST1234" }, { query: "B01GOH7PKA", domain: "co.uk" }] }),
  });
  const batch = await cr.json();
  check(cr.status === 201 && batch.id, "batch created: " + cr.status + " " + JSON.stringify(batch));
  await page.click('nav >> text=Batches');
  check(await page.isVisible(`tr[data-batch="${batch.id}"]`), "the batch is listed");
  await page.click(`tr[data-batch="${batch.id}"] a`);
  for (let i = 0; i < 100; i++) {
    if ((await page.textContent('[data-testid="batch-status"]')).trim() === "complete") break;
    await page.waitForTimeout(200);
    await page.reload();
  }
  check((await page.textContent('[data-testid="batch-status"]')).trim() === "complete", "the batch completes");
  check(await page.isVisible('[data-testid="batch-items"] tr[data-index="1"]'), "its items are shown");
  await page.click('[data-testid="batch-items"] tr[data-index="0"] summary');
  await shot(page, "batch");
  await page.click('nav >> text=Batches');
  await shot(page, "batches");
  log("batch", { id: batch.id });
  await page.click('nav >> text=API keys');

  // 5. Revoke it (the page asks first).
  page.once("dialog", (d) => d.accept());
  await Promise.all([page.waitForURL("**/dashboard/keys?revoked=*"), page.click(`tr[data-key="${short}"] [data-testid="revoke"]`)]);
  check((await page.locator(`tr[data-key="${short}"] [data-testid="key-state"]`).textContent()).trim() === "revoked", "the key is revoked");
  await shot(page, "revoked");

  // 6. The next request is refused.
  const refused = await api(key);
  check(refused.status === 401 && refused.body.error === "revoked", "the revoked key is refused: " + refused.status + " " + JSON.stringify(refused.body));
  log("revoked key refused", { status: refused.status, error: refused.body.error });

  // The API reference renders the OpenAPI document; the catalogue lists the endpoints.
  await page.click('nav >> text=API docs');
  await page.waitForSelector('#docs[data-rendered="true"]');
  check(await page.isVisible('section.op[id="amazon.product"]'), "the docs show amazon.product");
  check((await page.textContent('[data-testid="api-version"]')).trim() === "v1.0.0", "API version 1.0.0");
  check(await page.isVisible('section.op[id="amazon.product"] tr[data-param="domain"]'), "the docs list the domain parameter");
  await page.goto(`${base}/docs#amazon.product`);
  await page.waitForSelector('#docs[data-rendered="true"]');
  await shot(page, "docs", false);
  await page.click('nav >> text=Catalogue');
  check(await page.isVisible('tr[data-endpoint="amazon.product"] [data-testid="proven"]'), "the catalogue lists amazon.product");
  await shot(page, "catalogue");

  // Sign out.
  await Promise.all([page.waitForURL("**/dashboard/signin"), page.click("text=Sign out")]);
  await page.goto(`${base}/dashboard/keys`);
  check(page.url().includes("/dashboard/signin"), "signed out");
  check(consoleErrors.length === 0, "no errors in the browser console: " + consoleErrors.join("; "));
  log("ok");
  console.log("e2e: 1 passed, 0 failed");
} catch (err) {
  console.error(String(err && err.stack || err));
  if (page) {
    try { await page.screenshot({ path: join(artifacts, "failure.png"), fullPage: true }); } catch (e) { /* the page is gone */ }
  }
  console.log("e2e: 0 passed, 1 failed");
  process.exitCode = 1;
} finally {
  await browser.close();
}
