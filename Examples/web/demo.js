// A virtualized chat whose rows are placed with heights from `textmeasure serve`, never measured here.
//
// Each message's text height comes from POST /v1/measure ("breaking": "browser", the page's font size,
// the text's CSS width); a row is that height plus a fixed chrome (ROW below). Offsets are prefix sums of
// the row heights; only rows in and near the viewport are in the document, absolutely positioned in a
// container as tall as the total. The window scrolls (no inner scroller). Nothing in this file reads a
// rendered size (no getBoundingClientRect, offsetHeight, clientHeight, scrollHeight…): the viewport's
// size comes from window.visualViewport, everything else from the numbers below and the server's answers.
//
// The contract other tools rely on (Examples/web/test_demo.py, docs/web-demo.md): each rendered row has
// data-index (its index), data-top (its predicted top in #list, CSS px) and data-height (its predicted
// height); window.demoReady resolves once every row's height has arrived. window.demo has the rest.

// ---------------------------------------------------------------------------------------------------
// Layout: every length that adds to a height, in CSS px (demo.css reads them as custom properties).

const FONT_SIZE = 15;                 // the messages' font size, sent with every item
const PAGE = { header: 52, older: 56, footer: 40, columnMax: 960 };
const ROW = { topFirst: 8, topContinued: 2, meta: 22, bottom: 4, left: 64, right: 16 };
// Page chrome outside the list: document height = PAGE.header + PAGE.older + list total + PAGE.footer.
const PAGE_CHROME = PAGE.header + PAGE.older + PAGE.footer;
const LIST_TOP = PAGE.header + PAGE.older;   // the list's top in the document
const OVERSCAN = 800;                 // px rendered above and below the viewport
const INITIAL_COUNT = 10_000;
const OLDER_COUNT = 500;              // messages one "older messages" click prepends
const SEED = 20_240_304;
const FIRST_BATCH = 120;              // the first request: about one screen, for a fast first screen
const params = new URLSearchParams(location.search);
// Items per request: at most the server's --max-items (1,000 by default); a 413 halves it.
let batchSize = Math.max(1, Number(params.get('batch')) || 1_000);
const IN_FLIGHT = 2;                  // requests at once

/** The row's fixed chrome: padding, and the sender line on the first message of a run. */
function chrome(message) {
  return (message.first ? ROW.topFirst + ROW.meta : ROW.topContinued) + ROW.bottom;
}

/** The column's and the text's widths (whole px) for a viewport this wide. */
function widthsFor(viewportWidth) {
  const column = Math.min(PAGE.columnMax, Math.floor(viewportWidth));
  return { column, text: Math.max(40, column - ROW.left - ROW.right) };
}

function viewportWidth() { return window.visualViewport ? window.visualViewport.width : window.innerWidth; }
function viewportHeight() { return window.visualViewport ? window.visualViewport.height : window.innerHeight; }

// ---------------------------------------------------------------------------------------------------
// Messages: generated, from a fixed seed (the same 10,000 on every load).

function random(seed) {           // mulberry32
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = s => s.split(' ');
// Word lists per language; `join` is what goes between words ('' for scripts written without spaces).
const LANGUAGES = [
  { weight: 30, join: ' ', words: words("hey thanks sure I think we should ship the release today tomorrow the meeting moved to 3pm can you review my pull request lunch anyone coffee build is green again deploy failed because of a flaky test looks good to me let's sync after standup weekend plans hiking rain forecast great idea sounds fine working from home new design is ready for feedback please check the doc below I'll be late traffic on the bridge congrats on launch did anyone see the dashboard numbers are up this week it works on my machine rollback done ok cool nice perfect almost there one more thing") },
  { weight: 6, join: ' ', words: words("ich bin heute im Büro wir treffen uns um zehn Uhr das Wetter ist schön die Straßenbahn hat Verspätung Grüße aus München Frühstück Entschuldigung natürlich übermorgen Besprechung Zusammenfassung schicke dir später danke gemütlich Feierabend Brötchen Kraftfahrzeughaftpflichtversicherung") },
  { weight: 5, join: ' ', words: words("bonjour à tout le monde je serai en retard ce matin la réunion est déplacée à quinze heures c'est très bien merci beaucoup à demain où est la présentation ça marche les pâtes crème brûlée garçon façade élève déjà peut-être") },
  { weight: 5, join: ' ', words: words("hola qué tal mañana nos vemos en la oficina gracias por todo ¿vienes a comer? ¡claro! el niño año corazón canción está lloviendo otra vez señal pequeño") },
  { weight: 3, join: ' ', words: words("olá tudo bem amanhã vou trabalhar de casa reunião às três obrigado pão coração não sei ação também você") },
  { weight: 3, join: ' ', words: words("cześć jak się masz dziękuję bardzo spotkanie jutro o dziewiątej źdźbło żółw gęś łódź wszystko dobrze zażółć gęślą jaźń") },
  { weight: 3, join: ' ', words: words("xin chào cảm ơn bạn hôm nay trời đẹp quá chúng ta họp lúc mấy giờ được rồi người Việt Nam phở bò rất ngon tiếng") },
  { weight: 2, join: ' ', words: words("merhaba nasılsın teşekkürler yarın görüşürüz toplantı saat üçte çok güzel İstanbul şehir ağaç ılık") },
  { weight: 6, join: ' ', words: words("привет как дела сегодня встреча перенесена на завтра спасибо большое хорошо давай созвонимся вечером погода отличная ёлка щука съешь ещё этих мягких французских булок достопримечательности человеконенавистничество") },
  { weight: 2, join: ' ', words: words("привіт дякую будь ласка ґанок їжак єнот гарного дня") },
  { weight: 3, join: ' ', words: words("γεια σου τι κάνεις ευχαριστώ πολύ αύριο συνάντηση στις δέκα καλημέρα θάλασσα ελληνικά ψυχή ωραία") },
  { weight: 5, join: ' ', words: words("مرحبا كيف حالك شكرا جزيلا الاجتماع غدا في الساعة العاشرة صباح الخير نعم لا المدينة الكتاب جميل جدا سأرسل الملف بعد قليل") },
  { weight: 3, join: ' ', words: words("שלום מה שלומך תודה רבה נתראה מחר בפגישה בשעה עשר בוקר טוב ירושלים תל אביב בסדר גמור") },
  { weight: 4, join: ' ', words: words("नमस्ते आप कैसे हैं धन्यवाद कल मिलते हैं बैठक दस बजे बहुत अच्छा ठीक है भारत दिल्ली मुंबई चाय पीने चलें") },
  { weight: 4, join: '', words: words("สวัสดี ครับ ค่ะ ขอบคุณ มาก พรุ่งนี้ ประชุม ตอน สิบ โมง เช้า อากาศ ดี กรุงเทพ ไป กิน ข้าว กัน ไหม ได้ เลย ภาษาไทย"), stop: '' },
  { weight: 6, join: '', words: words("你好 今天 天气 很好 我们 明天 开会 谢谢 没问题 下午 三点 北京 上海 吃饭 了吗 这个 项目 进展 顺利 请 查看 文档"), stop: '。', comma: '，' },
  { weight: 5, join: '', words: words("こんにちは ありがとう ございます 明日 会議 です よろしく お願いします 東京 ラーメン 食べに 行きましょう カタカナ ちょっと 待って ください 了解 しました"), stop: '。', comma: '、' },
  { weight: 4, join: ' ', words: words("안녕하세요 감사합니다 내일 회의 있어요 서울 점심 먹으러 갈까요 좋아요 잠깐만요 확인 했습니다 한국어") },
];
const EMOJI = words("😀 😂 🙂 😉 😍 🤔 🙏 👍 👍🏽 👋 👋🏿 🎉 🔥 ❤️ ✅ 🚀 ☕ 🍕 🌧️ ⚽ 🇩🇪 🇯🇵 🇧🇷 👨‍👩‍👧 🤷‍♂️ 😅 💯 🙈 ✨ 🥳");
const LINKS = [
  'https://example.com/docs/getting-started', 'https://github.com/example/textmeasure/pull/1234',
  'https://www.example.org/search?q=text+measure&lang=de&page=2', 'www.example.net/a/b/c',
  'https://example.com/very/long/path/that/keeps/going/and/going/until/it/has/to/break/somewhere/index.html?utm_source=chat&utm_medium=link',
  'mailto:team@example.com', 'https://maps.example.com/@52.5200,13.4050,15z',
];
const LONG_WORDS = [
  'Donaudampfschifffahrtsgesellschaftskapitänsmütze', 'pneumonoultramicroscopicsilicovolcanoconiosis',
  'a3f9c2e1b7d84f0e9a6c5b2d1e0f9a8b7c6d5e4f', 'sooooooooooooooooooooooooo', 'hahahahahahahahahahahahaha',
  '/usr/local/share/textmeasure/Fonts/NotoSansDevanagari-Regular.ttf', '!!!!!!!!!!!!!!!!!!!!',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0',
];
const SENDERS = [
  ['You', '#3b5bdb'], ['Alice', '#e8590c'], ['Jürgen', '#2b8a3e'], ['Zoë', '#c2255c'], ['Мария', '#5f3dc4'],
  ['أحمد', '#0b7285'], ['יעל', '#a61e4d'], ['สมชาย', '#d9480f'], ['प्रिया', '#5c940d'], ['王芳', '#1864ab'],
  ['さくら', '#862e9c'], ['민준', '#087f5b'], ['Nguyễn', '#e67700'], ['Ólafur', '#364fc7'],
];

function pick(rnd, list) { return list[Math.floor(rnd() * list.length)]; }

function pickLanguage(rnd) {
  const total = LANGUAGES.reduce((sum, l) => sum + l.weight, 0);
  let r = rnd() * total;
  for (const language of LANGUAGES) if ((r -= language.weight) < 0) return language;
  return LANGUAGES[0];
}

/** One sentence in `language`: words, now and then an emoji, a link or a long word. */
function sentence(rnd, language, count) {
  let text = '';
  let previous = 'none';   // what the text ends with: 'none', 'word' (of the language) or 'other'
  for (let i = 0; i < count; i++) {
    const r = rnd();
    let token, kind = 'other';
    if (r < 0.05) token = pick(rnd, EMOJI);
    else if (r < 0.065) token = pick(rnd, LINKS);
    else if (r < 0.075) token = pick(rnd, LONG_WORDS);
    else if (r < 0.085 && language.comma && previous === 'word') { text += language.comma; previous = 'comma'; continue; }
    else { token = pick(rnd, language.words); kind = 'word'; }
    if (kind === 'word' && previous === 'none' && language.join === ' ') token = token[0].toUpperCase() + token.slice(1);
    // Words of a script written without spaces follow one another (and a comma) directly.
    const glued = language.join === '' && kind === 'word' && (previous === 'word' || previous === 'comma');
    text += previous === 'none' || glued ? token : ' ' + token;
    previous = kind;
  }
  const stop = language.stop ?? pick(rnd, ['.', '.', '!', '?', '', '…']);
  return text + (previous === 'word' ? stop : '');
}

/** A message's text: a length drawn like a chat's (many short, some long, a few with paragraphs). */
function messageText(rnd) {
  const r = rnd();
  if (r < 0.04) return Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(rnd, EMOJI)).join('');
  if (r < 0.06) return pick(rnd, LINKS);
  const language = pickLanguage(rnd);
  const length = r < 0.5 ? 1 + Math.floor(rnd() * 6) : r < 0.85 ? 6 + Math.floor(rnd() * 20) : 20 + Math.floor(rnd() * 60);
  const paragraphs = rnd() < 0.06 ? 2 + Math.floor(rnd() * 3) : 1;
  const out = [];
  for (let p = 0; p < paragraphs; p++) {
    let paragraph = sentence(rnd, language, length);
    if (rnd() < 0.12) paragraph += ' ' + sentence(rnd, pickLanguage(rnd), 2 + Math.floor(rnd() * 6));
    out.push(paragraph);
  }
  if (rnd() < 0.02) out.push('    code:  indented with spaces\tand a tab');
  return out.join(rnd() < 0.5 ? '\n' : '\n\n');
}

/**
 * `count` messages from `seed`, in time order, ending at `end` (minutes); ids `firstId`, firstId + 1, ….
 * Runs of 1–4 messages by one sender: the first of a run shows the sender line.
 */
function generate(seed, count, end, firstId) {
  const rnd = random(seed);
  const messages = [];
  let time = 0;
  let run = 0, sender = 0;
  for (let i = 0; i < count; i++) {
    if (run === 0) {
      let next = Math.floor(rnd() * SENDERS.length);
      if (next === sender) next = (next + 1) % SENDERS.length;
      sender = next;
      run = 1 + Math.floor(rnd() * 4);
    }
    const first = run === 1 || messages.length === 0 || messages[messages.length - 1].sender !== sender;
    run--;
    time += first ? Math.floor(rnd() * 30) : Math.floor(rnd() * 3);
    messages.push({ id: firstId + i, sender, text: messageText(rnd), time, first });
  }
  for (const m of messages) m.time += end - time;   // the last one at `end`
  return messages;
}

/** The code point (Unicode scalar) count of a string: span offsets are in scalars, JS strings in UTF-16. */
function scalars(s) { let n = 0; for (const _ of s) n++; return n; }

/** Some messages address someone: "@Name " in bold, a span of the batch contract. */
function addMentions(messages, seed) {
  const rnd = random(seed ^ 0x5bd1e995);
  for (const m of messages) {
    if (m.sender === 0 || rnd() >= 0.06) continue;
    const mention = '@' + SENDERS[1 + Math.floor(rnd() * (SENDERS.length - 1))][0];
    m.text = mention + ' ' + m.text;
    m.spans = [{ start: 0, end: scalars(mention), bold: true }];
  }
  return messages;
}

// ---------------------------------------------------------------------------------------------------
// State: rows, their heights at the current text width, and the prefix sums.

const state = {
  messages: [],
  textWidth: 0,
  columnWidth: 0,
  heights: new Float64Array(0),   // row heights: exact where `exact`, estimates elsewhere
  exact: new Uint8Array(0),       // 1: measured at textWidth
  exactCount: 0,                  // rows measured at textWidth
  offsets: new Float64Array(1),   // offsets[i]: top of row i; offsets[n]: the total
  generation: 0,                  // bumped by every width change: answers for an older one are dropped
  olderPages: 0,
  errors: [],
  busy: 0,                        // measuring jobs running, and a resize waiting for its timer
  idleWaiters: [],
  reader: null,                   // the row held in place across changes: { id, fromTop, scrollY }
  completeWaiters: [],            // resolved when every row has its height at the current width
  stats: { requests: 0, items: 0 },
};
const list = document.getElementById('list');
const elements = new Map();       // message id → rendered row element

function estimate(message, textWidth) {
  const lineHeight = Math.ceil(FONT_SIZE * 1.37);
  const perLine = Math.max(1, Math.floor(textWidth / (FONT_SIZE * 0.55)));
  let lines = 0;
  for (const paragraph of message.text.split('\n')) lines += Math.max(1, Math.ceil(paragraph.length / perLine));
  return chrome(message) + lines * lineHeight;
}

function recomputeOffsets() {
  const n = state.messages.length;
  if (state.offsets.length !== n + 1) state.offsets = new Float64Array(n + 1);
  let sum = 0;
  for (let i = 0; i < n; i++) { state.offsets[i] = sum; sum += state.heights[i]; }
  state.offsets[n] = sum;
  list.style.height = sum + 'px';
}

/** The row at list position `y`: the last row whose top is at or above it (0 when none). */
function rowAt(y) {
  const offsets = state.offsets;
  let lo = 0, hi = state.messages.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= y) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/**
 * Changes heights or rows with the reader's row held in place: the row at the top of the viewport
 * (just under the fixed header) keeps its distance from it, whatever `change` does to the heights or
 * inserts before it (rows are found by id: ids are consecutive from the first row's).
 *
 * The reader's row is chosen when a change comes after the reader scrolled, and held through the
 * changes that follow (the answers of one resize): a row that shrinks is still the one held, even
 * when the viewport's top edge now falls in the row after it.
 */
function keepingReaderRow(change) {
  const n = state.messages.length;
  const y = window.scrollY + PAGE.header - LIST_TOP;
  let reader = state.reader;
  if (!reader || reader.scrollY !== window.scrollY) {
    const index = rowAt(y);
    reader = n ? { id: state.messages[index].id, fromTop: state.offsets[index] - y } : null;
  }
  change();
  recomputeOffsets();
  state.reader = null;
  if (reader) {
    const index = reader.id - state.messages[0].id;   // ids are consecutive
    const target = LIST_TOP + state.offsets[index] - reader.fromTop - PAGE.header;
    if (Math.abs(target - window.scrollY) > 0.01) window.scrollTo(0, target);
    state.reader = { ...reader, scrollY: window.scrollY };
  }
  scheduleRender();
}

// ---------------------------------------------------------------------------------------------------
// Measuring: POST /v1/measure in batches.

/** Text heights of `messages` at `width`, in requests of at most `batchSize` items (a 413 halves it). */
async function measureChunk(messages, width) {
  const items = messages.map(m => {
    const item = { text: m.text, width, size: FONT_SIZE, breaking: 'browser' };
    if (m.spans) item.spans = m.spans;
    return item;
  });
  const response = await fetch('/v1/measure', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(items),
  });
  if (response.status === 413 && messages.length > 1) {
    batchSize = Math.max(1, Math.floor(messages.length / 2));
    const half = Math.ceil(messages.length / 2);
    const [a, b] = await Promise.all([measureChunk(messages.slice(0, half), width), measureChunk(messages.slice(half), width)]);
    return a.concat(b);
  }
  if (!response.ok) throw new Error(`POST /v1/measure: ${response.status} ${await response.text()}`);
  const results = await response.json();
  state.stats.requests++;
  state.stats.items += messages.length;
  return results.map((r, i) => {
    if (typeof r.height === 'number') return r.height;
    state.errors.push({ id: messages[i].id, error: r.error });
    return NaN;
  });
}

/**
 * Measures the messages of `order` (indices, most wanted first) at `width`, IN_FLIGHT requests at a
 * time, calling `apply(messages, heights)` as each answer arrives while `generation` is current.
 */
async function measure(order, width, generation, apply) {
  state.busy++;
  try {
    const ids = order.map(i => state.messages[i]);
    const chunks = [];
    for (let at = 0; at < ids.length;) {
      const size = chunks.length === 0 && ids.length > FIRST_BATCH * 2 ? FIRST_BATCH : batchSize;
      chunks.push(ids.slice(at, at + size));
      at += size;
    }
    let next = 0;
    const worker = async () => {
      while (next < chunks.length && generation === state.generation) {
        const chunk = chunks[next++];
        const heights = await measureChunk(chunk, width);
        if (generation === state.generation) apply(chunk, heights);
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, chunks.length) }, worker));
  } catch (error) {
    state.errors.push({ error: String(error) });
    console.error(error);
  } finally {
    done();
  }
}

/** Ends a measuring job: wakes what waits for idleness or completeness. */
function done() {
  state.busy--;
  if (state.exactCount === state.messages.length) for (const resolve of state.completeWaiters.splice(0)) resolve();
  if (state.busy === 0) for (const resolve of state.idleWaiters.splice(0)) resolve();
  showStatus();
}

/** Row heights for measured messages: text height + chrome. Index by id, since rows may have moved. */
function applyHeights(messages, heights) {
  const first = state.messages.length ? state.messages[0].id : 0;
  keepingReaderRow(() => {
    messages.forEach((m, k) => {
      const i = m.id - first;
      if (Number.isNaN(heights[k])) return;
      state.heights[i] = chrome(m) + heights[k];
      if (!state.exact[i]) { state.exact[i] = 1; state.exactCount++; }
    });
  });
  if (state.exactCount === state.messages.length) for (const resolve of state.completeWaiters.splice(0)) resolve();
}

// ---------------------------------------------------------------------------------------------------
// Rendering: the rows in and near the viewport.

let renderScheduled = false;
function scheduleRender() {
  if (renderScheduled) return;
  renderScheduled = true;
  requestAnimationFrame(() => { renderScheduled = false; render(); });
}

function rowElement(message) {
  const row = document.createElement('div');
  row.className = 'row' + (message.first ? ' first' : '') + (message.sender === 0 ? ' own' : '');
  if (message.first) {
    const [name, color] = SENDERS[message.sender];
    const avatar = document.createElement('div');
    avatar.className = 'avatar';
    avatar.style.background = color;
    avatar.textContent = [...name][0];
    const meta = document.createElement('div');
    meta.className = 'meta';
    const who = document.createElement('span');
    who.className = 'name';
    who.textContent = name;
    const time = document.createElement('time');
    const minutes = ((message.time % 1440) + 1440) % 1440;
    time.textContent = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    meta.append(who, time);
    row.append(avatar, meta);
  }
  const text = document.createElement('div');
  text.className = 'text';
  if (message.spans) {
    // The bold span: a <b> (font-weight 700, the cascade's bold faces), the rest a text node.
    const cut = [...message.text].slice(0, message.spans[0].end).join('').length;
    const bold = document.createElement('b');
    bold.textContent = message.text.slice(0, cut);
    text.append(bold, message.text.slice(cut));
  } else {
    text.textContent = message.text;
  }
  row.append(text);
  return row;
}

function render() {
  const n = state.messages.length;
  const top = window.scrollY - LIST_TOP - OVERSCAN;
  const bottom = window.scrollY + viewportHeight() - LIST_TOP + OVERSCAN;
  const first = rowAt(Math.max(0, top)), last = n ? rowAt(bottom) : -1;
  const keep = new Set();
  const fresh = document.createDocumentFragment();
  for (let i = first; i <= last; i++) {
    if (!state.exact[i]) continue;    // not measured at this width yet: not drawn
    const message = state.messages[i];
    keep.add(message.id);
    let row = elements.get(message.id);
    if (!row) {
      row = rowElement(message);
      elements.set(message.id, row);
      fresh.append(row);
    }
    const y = state.offsets[i], h = state.heights[i];
    if (row.dataset.top !== String(y)) { row.style.top = y + 'px'; row.dataset.top = String(y); }
    if (row.dataset.index !== String(i)) row.dataset.index = String(i);
    if (row.dataset.height !== String(h)) row.dataset.height = String(h);
    row.dataset.id = String(message.id);
  }
  for (const [id, row] of elements) {
    if (!keep.has(id)) { row.remove(); elements.delete(id); }
  }
  list.append(fresh);
}

// ---------------------------------------------------------------------------------------------------
// Width changes and older messages.

function applyWidths(widths) {
  state.columnWidth = widths.column;
  state.textWidth = widths.text;
  const style = document.documentElement.style;
  style.setProperty('--column', widths.column + 'px');
  style.setProperty('--text-width', widths.text + 'px');
}

/** A new text width: the rows around the reader's row first, then the rest; the reader's row stays. */
async function relayout() {
  try {
    await relayoutTo(widthsFor(viewportWidth()));
  } finally {
    done();   // the resize's job, counted since onResize
  }
}

async function relayoutTo(widths) {
  if (widths.text === state.textWidth) {
    if (widths.column !== state.columnWidth) applyWidths(widths);
    scheduleRender();
    return;
  }
  const generation = ++state.generation;
  const n = state.messages.length;
  const anchor = rowAt(window.scrollY + PAGE.header - LIST_TOP);
  const near = [];
  for (let i = Math.max(0, anchor - 40); i < Math.min(n, anchor + 160); i++) near.push(i);
  const rest = [];
  for (let i = Math.min(n, anchor + 160); i < n; i++) rest.push(i);
  for (let i = Math.max(0, anchor - 40) - 1; i >= 0; i--) rest.push(i);
  let switched = false;
  await measure(near, widths.text, generation, (messages, heights) => {
    if (!switched) {
      // The first answer at the new width: switch the CSS width and every height at once.
      switched = true;
      keepingReaderRow(() => {
        applyWidths(widths);
        state.exact.fill(0);
        state.exactCount = 0;
        state.messages.forEach((m, i) => { state.heights[i] = estimate(m, widths.text); });
      });
    }
    applyHeights(messages, heights);
  });
  if (generation !== state.generation) return;
  await measure(rest, widths.text, generation, applyHeights);
}

let resizeTimer = 0;
function onResize() {
  if (resizeTimer) clearTimeout(resizeTimer); else state.busy++;   // one job until relayout ends
  resizeTimer = setTimeout(() => { resizeTimer = 0; relayout(); }, 60);
  scheduleRender();
}

/** Prepends OLDER_COUNT older messages, measured before they are inserted: the reader's row stays. */
async function loadOlder() {
  const buttons = document.querySelectorAll('.older-button');
  buttons.forEach(b => { b.disabled = true; });
  state.busy++;
  try {
    const page = ++state.olderPages;
    const oldest = state.messages[0];
    const older = addMentions(generate(SEED + page, OLDER_COUNT, oldest.time - 1, oldest.id - OLDER_COUNT), SEED + page);
    const width = state.textWidth, generation = state.generation;
    const heights = [];
    for (let at = 0; at < older.length; at += batchSize) {
      heights.push(...await measureChunk(older.slice(at, at + batchSize), width));
    }
    if (generation !== state.generation) {   // the width changed meanwhile: measure them again
      state.olderPages--;
      return await loadOlder();
    }
    keepingReaderRow(() => {
      const n = state.messages.length + older.length;
      const rowHeights = new Float64Array(n), exact = new Uint8Array(n);
      older.forEach((m, i) => {
        const known = !Number.isNaN(heights[i]);
        rowHeights[i] = known ? chrome(m) + heights[i] : estimate(m, width);
        exact[i] = known ? 1 : 0;
        if (known) state.exactCount++;
      });
      rowHeights.set(state.heights, older.length);
      exact.set(state.exact, older.length);
      state.messages = older.concat(state.messages);
      state.heights = rowHeights;
      state.exact = exact;
    });
  } catch (error) {
    state.errors.push({ error: String(error) });
    console.error(error);
  } finally {
    buttons.forEach(b => { b.disabled = false; });
    done();
  }
}

// ---------------------------------------------------------------------------------------------------
// Start.

const timing = { start: performance.now() };

function showStatus() {
  const n = state.messages.length;
  document.getElementById('subtitle').textContent = `${n.toLocaleString('en')} messages`;
  const status = document.getElementById('status');
  if (timing.measureMs === undefined) { status.textContent = 'Measuring…'; return; }
  status.textContent = `${INITIAL_COUNT.toLocaleString('en')} heights from textmeasure serve in ` +
    `${(timing.measureMs / 1000).toFixed(2)} s (${Math.round(timing.rowsPerSecond).toLocaleString('en')} rows/s)` +
    ` · first screen ${Math.round(timing.firstScreenMs)} ms · no DOM measuring` +
    (state.errors.length ? ` · ${state.errors.length} errors` : '');
}

function start() {
  history.scrollRestoration = 'manual';
  const style = document.documentElement.style;
  style.setProperty('--header', PAGE.header + 'px');
  style.setProperty('--older', PAGE.older + 'px');
  style.setProperty('--footer', PAGE.footer + 'px');
  style.setProperty('--font-size', FONT_SIZE + 'px');
  applyWidths(widthsFor(viewportWidth()));

  state.messages = addMentions(generate(SEED, INITIAL_COUNT, 60 * 24 * 30, 0), SEED);
  const n = state.messages.length;
  state.heights = Float64Array.from(state.messages, m => estimate(m, state.textWidth));
  state.exact = new Uint8Array(n);
  recomputeOffsets();
  showStatus();

  let firstRows = true;
  const measureStart = performance.now();
  const complete = new Promise(resolve => state.completeWaiters.push(resolve));
  measure([...state.messages.keys()], state.textWidth, state.generation, (messages, heights) => {
    applyHeights(messages, heights);
    if (firstRows) {
      firstRows = false;
      // The first rows are placed; the first screen is drawn once their fonts have loaded.
      requestAnimationFrame(() => {
        render();
        timing.firstRowsMs = performance.now();
        document.fonts.ready.then(() => { timing.firstScreenMs = performance.now(); });
      });
    }
  });
  // Every row's height has arrived (at the width of the moment: a resize meanwhile measures again).
  const ready = complete.then(async () => {
    timing.measureMs = performance.now() - measureStart;
    timing.rowsPerSecond = n / (timing.measureMs / 1000);
    await document.fonts.ready;
    if (timing.firstScreenMs === undefined) timing.firstScreenMs = performance.now();
    showStatus();
  });

  window.addEventListener('scroll', scheduleRender, { passive: true });
  window.addEventListener('resize', onResize);
  document.querySelectorAll('.older-button').forEach(b => b.addEventListener('click', loadOlder));

  window.demoReady = ready.then(() => window.demo.stats());
  window.demo = {
    layout: { FONT_SIZE, PAGE, ROW, PAGE_CHROME, LIST_TOP },
    /** Row count. */
    get count() { return state.messages.length; },
    /** The predicted list height (the sum of the row heights). */
    total: () => state.offsets[state.messages.length],
    /** The text width the rows are measured at (CSS px). */
    textWidth: () => state.textWidth,
    /** Resolves when no measuring is under way (after a resize or "older messages"). */
    idle: () => state.busy === 0 ? Promise.resolve() : new Promise(r => state.idleWaiters.push(r)),
    /** Whether every row has its height at the current width. */
    complete: () => state.exactCount === state.messages.length,
    loadOlder,
    messages: () => state.messages.map(m => ({ id: m.id, text: m.text, spans: m.spans || null })),
    errors: () => state.errors.slice(),
    stats: () => ({
      rows: n, requests: state.stats.requests, items: state.stats.items, textWidth: state.textWidth,
      firstRowsMs: timing.firstRowsMs, firstScreenMs: timing.firstScreenMs, measureMs: timing.measureMs,
      rowsPerSecond: timing.rowsPerSecond, errors: state.errors.length,
    }),
  };
}

start();
