//! The browser-versus-server equality cases of the rules the web app asks through WASM.
//!
//! Generates many inputs (deterministic pseudo-random, with the edge cases the web app's old
//! copies got wrong: unicode letters and digits, spaces, characters outside the basic plane,
//! tickets without a queue, other users' pending tickets, every tab) in the shapes the web app
//! holds them (the session's user, a list's parameters, a ticket as the API sends it), answers
//! each with the native core, and writes both to `web/src/wasm-pkg/rules-cases.json`.
//! `web/src/lib/wasm/rules.test.ts` runs the web app's functions (through the WASM build) on the
//! same inputs and must get the same answers. `cargo xtask test` runs this test before the web
//! tests.

use chatflow_core::error::FieldError;
use chatflow_core::inbox::membership::{self, ListView, ListedTicket, SignedIn};
use chatflow_core::validation::{self, FormValues};
use serde_json::{Value, json};

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// Some of `items` (each with even odds), in order.
    fn some<T: Clone>(&mut self, items: &[T]) -> Vec<T> {
        items.iter().filter(|_| self.chance()).cloned().collect()
    }

    /// A text of up to `max` characters from `alphabet`.
    fn text(&mut self, alphabet: &[char], max: usize) -> String {
        let len = self.below(max + 1);
        (0..len).map(|_| *self.pick(alphabet)).collect()
    }
}

/// Letters, digits (ASCII and not), spaces of several kinds, symbols, accents, emoji.
const ALPHABET: &[char] = &[
    'a', 'b', 'z', 'A', 'Q', 'Z', '0', '5', '9', 'é', 'Á', 'ç', 'ß', 'ǅ', 'ı', 'İ', 'ж', 'Ж', '字',
    '٣', '１', '²', ' ', '\t', '\u{a0}', '\u{2003}', '!', '@', '#', '.', '-', '_', '+', '(', ')',
    '😀', '𝐀', '\u{301}',
];

const PASSWORDS: &[&str] = &[
    "",
    "abc",
    "abcdefg",
    "abcdefgh",
    "Abcdefgh",
    "Abcdefg1",
    "Abcdef1!",
    "A1!",
    "        ",
    "Abcdefg ",
    "Abcdef1 ",
    "ÁÉÍÓÚáéí",
    "abcdefg٣",
    "abcdefg１",
    "Senha😀😀",
    "😀😀😀😀",
    "𝐀𝐀𝐀𝐀a",
    "123456",
    "ǅǅǅǅǅǅǅǅ",
    "ıİıİıİıİ",
];

const EMAILS: &[&str] = &[
    "a@b.co",
    "ana.souza+x@mail.example.com.br",
    "  Ana@Example.COM ",
    "joão@exemplo.com.br",
    "",
    "ana",
    "ana@",
    "@example.com",
    "ana@example",
    "ana@@example.com",
    "ana@exa mple.com",
    "ana@example..com",
    "ana@-example.com",
    "ana@example.c",
    ".ana@example.com",
    "ana@example.123",
    "ana@exemplo.com.br.",
    "ana@例え.jp",
];

fn fields(list: Vec<FieldError>) -> Value {
    json!(list)
}

fn password_cases(rng: &mut Rng) -> Vec<Value> {
    let mut inputs: Vec<String> = PASSWORDS.iter().map(|p| (*p).to_owned()).collect();
    inputs.extend((0..300).map(|_| rng.text(ALPHABET, 14)));
    inputs
        .into_iter()
        .map(|password| {
            let strength = validation::password_strength(&password);
            json!({
                "password": password,
                "score": strength.score,
                "label": strength.label,
                "warn": validation::needs_strength_warning(strength.score),
            })
        })
        .collect()
}

fn email_cases(rng: &mut Rng) -> Vec<Value> {
    let local = ['a', 'B', '.', '+', 'é', ' ', '1', '_'];
    let domain = ['a', 'b', '.', '-', '1', 'ç'];
    let mut inputs: Vec<String> = EMAILS.iter().map(|e| (*e).to_owned()).collect();
    inputs.extend((0..150).map(|_| {
        format!(
            "{}@{}.{}",
            rng.text(&local, 6),
            rng.text(&domain, 8),
            rng.text(&domain, 3)
        )
    }));
    inputs
        .into_iter()
        .map(|email| json!({ "email": email, "valid": validation::is_valid_email(&email) }))
        .collect()
}

/// A text that is often near a length bound (`min`/`max` characters) and sometimes padded.
fn bounded(rng: &mut Rng, min: usize, max: usize) -> String {
    let len = match rng.below(6) {
        0 => 0,
        1 => min.saturating_sub(1),
        2 => min,
        3 => max,
        4 => max + 1,
        _ => rng.below(max + 2),
    };
    let core: String = (0..len)
        .map(|_| *rng.pick(&['a', 'Z', 'é', '字', '😀', '1', '-']))
        .collect();
    if rng.below(4) == 0 {
        format!("  {core} ")
    } else {
        core
    }
}

fn phone(rng: &mut Rng) -> String {
    let digits = rng.below(14);
    let body: String = (0..digits).map(|_| *rng.pick(&['1', '9', '0'])).collect();
    match rng.below(4) {
        0 => format!(
            "({}) {}",
            body.get(..2).unwrap_or(""),
            body.get(2..).unwrap_or("")
        ),
        1 => format!("+{body}"),
        2 => format!("{body}x"),
        _ => body,
    }
}

fn time(rng: &mut Rng) -> Option<String> {
    match rng.below(5) {
        0 => None,
        1 => Some(
            rng.pick(&["24:00", "8:30", "aa:bb", "23:60", ""])
                .to_string(),
        ),
        _ => Some(format!("{:02}:{:02}", rng.below(24), rng.below(60))),
    }
}

fn form_cases(rng: &mut Rng) -> Vec<Value> {
    let mut cases = Vec::new();
    for i in 0..400 {
        let email = rng.pick(EMAILS).to_string();
        let form = match i % 8 {
            0 => FormValues::User {
                create: rng.chance(),
                name: bounded(rng, 2, 50),
                email,
                password: rng.chance().then(|| bounded(rng, 5, 50)),
                start_work: time(rng),
                end_work: time(rng),
            },
            1 => FormValues::Contact {
                name: bounded(rng, 2, 50),
                number: phone(rng),
                email: rng.chance().then_some(email),
            },
            2 => FormValues::Signup {
                company_name: bounded(rng, 1, 255),
                name: bounded(rng, 2, 50),
                email,
                password: bounded(rng, 5, 50),
                phone: phone(rng),
                plan_id: *rng.pick(&[None, Some(0), Some(1), Some(7)]),
            },
            3 => FormValues::Note {
                note: bounded(rng, 2, 40),
            },
            4 => FormValues::Tag {
                name: bounded(rng, 3, 255),
            },
            5 => FormValues::Queue {
                name: bounded(rng, 2, 50),
                color: bounded(rng, 3, 9),
            },
            6 => FormValues::Connection {
                name: bounded(rng, 2, 50),
            },
            _ => FormValues::NewPassword {
                new_password: rng.text(ALPHABET, 12),
            },
        };
        let answer = fields(validation::check_form(&form));
        cases.push(json!({ "values": form, "fields": answer }));
    }
    cases
}

const TABS: &[&str] = &["open", "pending", "group", "closed", "search"];
const STATUSES: &[&str] = &["open", "pending", "group", "closed", "lgpd", "nps"];

/// A session user as `GET /auth/me` sends it (the web app's shape).
fn session_user(rng: &mut Rng) -> Value {
    let toggle = |rng: &mut Rng| if rng.chance() { "enabled" } else { "disabled" };
    let queues: Vec<Value> = rng
        .some(&[1, 2, 3])
        .into_iter()
        .map(|id| json!({ "id": id, "name": format!("Fila {id}"), "color": "#fff" }))
        .collect();
    json!({
        "id": 10,
        "name": "Ana",
        "email": "ana@example.com",
        "profile": if rng.below(3) == 0 { "admin" } else { "user" },
        "super": false,
        "companyId": 1,
        "allTicket": if rng.chance() { "enable" } else { "disable" },
        "allowGroup": rng.chance(),
        "defaultTheme": "light",
        "defaultMenu": "open",
        "allHistoric": toggle(rng),
        "allUserChat": toggle(rng),
        "userClosePendingTicket": toggle(rng),
        "showDashboard": toggle(rng),
        "allowRealTime": toggle(rng),
        "allowConnections": toggle(rng),
        "queues": queues,
    })
}

/// The core's reading of the session user (what the web app's module sends).
fn signed_in(user: &Value) -> SignedIn {
    let mut wire = user.clone();
    let ids: Vec<Value> = user["queues"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| q["id"].clone())
        .collect();
    wire["queueIds"] = json!(ids);
    serde_json::from_value(wire).expect("session user")
}

/// A list's parameters as the web app keys its cache (`TicketListParams`).
fn list_params(rng: &mut Rng) -> Value {
    json!({
        "tab": rng.pick(TABS),
        "search": "",
        "searchOnMessages": false,
        "showAll": rng.chance(),
        "queueIds": rng.some(&[1, 2, 3]),
        "tagIds": if rng.below(3) == 0 { rng.some(&[7, 8]) } else { Vec::new() },
        "userIds": if rng.below(3) == 0 { rng.some(&[10, 11]) } else { Vec::new() },
        "whatsappIds": if rng.below(3) == 0 { rng.some(&[3, 4]) } else { Vec::new() },
        "sort": if rng.chance() { "ASC" } else { "DESC" },
        "userId": 10,
    })
}

fn list_view(params: &Value) -> ListView {
    serde_json::from_value(params.clone()).expect("list")
}

/// A ticket as the API sends it (the fields list membership reads, and a few others).
fn api_ticket(rng: &mut Rng, id: usize) -> Value {
    let tags: Vec<Value> = rng
        .some(&[7, 8])
        .into_iter()
        .map(|t| json!({ "id": t, "name": format!("tag{t}"), "color": "#000" }))
        .collect();
    json!({
        "id": id,
        "uuid": format!("00000000-0000-4000-8000-{id:012}"),
        "companyId": if rng.below(10) == 0 { 2 } else { 1 },
        "status": rng.pick(STATUSES),
        "unreadMessages": rng.below(3),
        "lastMessage": "oi",
        "isGroup": rng.below(4) == 0,
        "userId": rng.pick(&[Value::Null, json!(10), json!(11)]),
        "queueId": rng.pick(&[Value::Null, json!(1), json!(2), json!(3)]),
        "whatsappId": rng.pick(&[Value::Null, json!(3), json!(4)]),
        "contactId": 1,
        "tags": tags,
    })
}

fn listed(ticket: &Value) -> ListedTicket {
    let tag_ids: Vec<Value> = ticket["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["id"].clone())
        .collect();
    let mut wire = ticket.clone();
    wire["tagIds"] = json!(tag_ids);
    serde_json::from_value(wire).expect("ticket")
}

fn membership_cases(rng: &mut Rng) -> (Vec<Value>, Vec<Value>) {
    let mut memberships = Vec::new();
    let mut controls = Vec::new();
    for i in 0..60 {
        let user = session_user(rng);
        let actor = signed_in(&user).actor();
        controls.push(json!({
            "user": user,
            "controls": membership::inbox_controls(&actor),
        }));
        for _ in 0..20 {
            let params = list_params(rng);
            let ticket = api_ticket(rng, i);
            let belongs =
                membership::belongs_to_list(&actor, &list_view(&params), &listed(&ticket));
            memberships.push(json!({
                "user": user,
                "params": params,
                "ticket": ticket,
                "belongs": belongs,
            }));
        }
    }
    (memberships, controls)
}

#[test]
fn writes_the_rules_cases_for_the_web_test() {
    let mut rng = Rng(16);
    let passwords = password_cases(&mut rng);
    let emails = email_cases(&mut rng);
    let forms = form_cases(&mut rng);
    let (memberships, controls) = membership_cases(&mut rng);
    let belonging = memberships.iter().filter(|c| c["belongs"] == true).count();
    // The generator reaches both answers often enough to be worth comparing.
    assert!(
        belonging > 100 && belonging < memberships.len() - 100,
        "{belonging}"
    );
    let cases = json!({
        "passwords": passwords,
        "emails": emails,
        "forms": forms,
        "memberships": memberships,
        "controls": controls,
        "flowLimits": chatflow_core::flow::flow_limits(),
        "scheduleLimits": chatflow_core::schedule::schedule_limits(),
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("src")
        .join("wasm-pkg");
    std::fs::create_dir_all(&dir).expect("wasm-pkg");
    let text = serde_json::to_string(&cases).expect("json");
    let path = dir.join("rules-cases.json");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).expect("writing the cases");
    }
}
