//! `chatflow dev ...`: tools for development and benchmarks.
//!
//! `chatflow dev seed --company ID --tickets N --messages-per-ticket M [--contacts K]` fills a
//! company with contacts, tickets and messages that look like a Brazilian customer-service inbox
//! (Portuguese names and messages, with accents), through the store's bulk path
//! (`chatflow_store::bulk`): multi-row inserts in transactions of a few thousand rows. It writes
//! no realtime events and no ticket logs: it is a load generator, not a user.
//!
//! The data is deterministic for a given `--seed`. Each contact has at most one ticket that is
//! not closed (its newest); the others are closed. Not-closed tickets are spread over `open`
//! and `pending`, some with unread messages; open and closed tickets belong to the company's
//! users, pending ones to nobody; queues are picked among the company's queues.

use std::time::Instant;

use chatflow_core::service::Ports;
use chatflow_core::{CompanyId, ErrorCode, TenantScope};
use chatflow_store::Store;
use chatflow_store::bulk::{BulkContact, BulkMessage, BulkTicket};
use chrono::{DateTime, Duration, Utc};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::output::print_json;

/// `chatflow dev ...`.
#[derive(Debug, Subcommand)]
pub enum DevCommand {
    /// Fill a company with generated contacts, tickets and messages (for development and
    /// benchmarks; writes no events).
    Seed(SeedArgs),
}

/// `chatflow dev seed`.
#[derive(Debug, Args)]
pub struct SeedArgs {
    /// The company to fill.
    #[arg(long, value_parser = parse_company)]
    pub company: CompanyId,
    /// How many tickets.
    #[arg(long, default_value_t = 1000)]
    pub tickets: u64,
    /// Messages of each ticket.
    #[arg(long, default_value_t = 10)]
    pub messages_per_ticket: u32,
    /// How many contacts (default: one per ticket). With fewer contacts than tickets, each
    /// contact gets several tickets, all closed but the newest.
    #[arg(long)]
    pub contacts: Option<u64>,
    /// The generator's seed: the same seed gives the same data.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn parse_company(text: &str) -> Result<CompanyId, String> {
    match text.parse::<i64>() {
        Ok(id) if id > 0 => Ok(CompanyId(id)),
        _ => Err(format!("{text:?} is not a positive id")),
    }
}

/// What a seeding run wrote.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SeedReport {
    company_id: i64,
    whatsapp_id: i64,
    contacts: u64,
    tickets: u64,
    messages: u64,
    seconds: f64,
}

/// Runs a `dev` command.
pub async fn run(
    cli: &Cli,
    store: &Store,
    ports: &Ports,
    command: &DevCommand,
) -> Result<(), Failure> {
    match command {
        DevCommand::Seed(args) => seed(cli, store, ports, args).await,
    }
}

/// Tickets written per transaction (with their messages): about 5 000 rows.
fn tickets_per_batch(messages_per_ticket: u32) -> usize {
    (5000 / (messages_per_ticket as usize + 1)).clamp(50, 2000)
}

async fn seed(cli: &Cli, store: &Store, ports: &Ports, args: &SeedArgs) -> Result<(), Failure> {
    let scope = TenantScope::new(args.company);
    if ports.companies.get(scope).await?.is_none() {
        return Err(ErrorCode::ERR_NO_COMPANY_FOUND.into());
    }
    let started = Instant::now();
    let users: Vec<i64> = ports
        .users
        .list_all(scope)
        .await?
        .iter()
        .map(|u| u.id.0)
        .collect();
    let queues: Vec<i64> = ports
        .queues
        .list(scope)
        .await?
        .iter()
        .map(|q| q.id.0)
        .collect();
    let whatsapp = store.bulk_connection(scope, "Carga de teste").await?;
    let existing = u64::try_from(store.bulk_contact_count(scope).await?).unwrap_or(0);
    let contacts = args.contacts.unwrap_or(args.tickets).max(1);
    let m = args.messages_per_ticket;
    let mut rng = Rng::new(args.seed ^ (args.company.0 as u64).rotate_left(32));
    let now = Utc::now();

    let progress = if cli.json {
        ProgressBar::hidden()
    } else {
        let style = ProgressStyle::with_template(
            "{spinner} {msg:<9} [{bar:40}] {pos}/{len} ({per_sec}, {eta} left)",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        ProgressBar::new(contacts).with_style(style)
    };

    // Contacts.
    progress.set_message("contacts");
    let mut contact_ids: Vec<i64> = Vec::with_capacity(usize::try_from(contacts).unwrap_or(0));
    let mut next = 0u64;
    while next < contacts {
        let end = (next + 2000).min(contacts);
        let rows: Vec<BulkContact> = (next..end)
            .map(|i| contact(&mut rng, existing + i, now))
            .collect();
        contact_ids.extend(store.bulk_contacts(scope, whatsapp, &rows).await?);
        progress.inc(end - next);
        next = end;
    }

    // Tickets, each batch with its messages.
    progress.set_message("tickets");
    progress.set_position(0);
    progress.set_length(args.tickets);
    let batch = tickets_per_batch(m) as u64;
    let mut messages_written = 0u64;
    let mut next = 0u64;
    while next < args.tickets {
        let end = (next + batch).min(args.tickets);
        let mut tickets = Vec::with_capacity((end - next) as usize);
        let mut bodies: Vec<Vec<GenMessage>> = Vec::with_capacity(tickets.capacity());
        for i in next..end {
            let contact_index = (i % contacts) as usize;
            // Only a contact's newest ticket may still be open or pending.
            let newest = i + contacts >= args.tickets;
            let (ticket, messages) = ticket(
                &mut rng,
                contact_ids[contact_index],
                newest,
                m,
                &users,
                &queues,
                now,
            );
            tickets.push(ticket);
            bodies.push(messages);
        }
        let ids = store.bulk_tickets(scope, whatsapp, &tickets).await?;
        let mut messages = Vec::with_capacity(tickets.len() * m as usize);
        for ((ticket, id), generated) in tickets.iter().zip(&ids).zip(bodies) {
            for (j, message) in generated.into_iter().enumerate() {
                messages.push(BulkMessage {
                    ticket_id: *id,
                    contact_id: ticket.contact_id,
                    external_id: format!("SEED{}{j:04}", ticket.uuid.simple()),
                    body: message.body,
                    from_me: message.from_me,
                    read: message.read,
                    created_at: message.at,
                });
            }
        }
        messages_written += store.bulk_messages(scope, whatsapp, &messages).await?;
        progress.inc(end - next);
        next = end;
    }
    progress.set_message("analyze");
    store.bulk_analyze().await?;
    progress.finish_and_clear();

    let report = SeedReport {
        company_id: args.company.0,
        whatsapp_id: whatsapp,
        contacts,
        tickets: args.tickets,
        messages: messages_written,
        seconds: started.elapsed().as_secs_f64(),
    };
    if cli.json {
        print_json(&report);
    } else {
        println!(
            "Seeded company {}: {} contacts, {} tickets, {} messages on connection {} in {:.1} s",
            report.company_id,
            report.contacts,
            report.tickets,
            report.messages,
            report.whatsapp_id,
            report.seconds
        );
    }
    Ok(())
}

// ------------------------------------------------------------------ generation

/// A small deterministic generator (SplitMix64): good enough for fake data, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const FIRST_NAMES: &[&str] = &[
    "João",
    "José",
    "Antônio",
    "Maria",
    "Ana",
    "Luís",
    "Márcia",
    "Fábio",
    "Sérgio",
    "Flávia",
    "Cláudia",
    "Tânia",
    "Vitória",
    "Inês",
    "Conceição",
    "Mônica",
    "Júlia",
    "Lúcia",
    "André",
    "Otávio",
    "Caetano",
    "Patrícia",
    "Letícia",
    "Beatriz",
    "Thaís",
    "Ângela",
    "César",
    "Rogério",
    "Natália",
    "Vinícius",
    "Gonçalo",
    "Simão",
    "Aurélio",
    "Pâmela",
    "Débora",
    "Iracema",
    "Joaquim",
    "Estêvão",
    "Raíssa",
    "Zé",
];

const LAST_NAMES: &[&str] = &[
    "Silva",
    "Santos",
    "Oliveira",
    "Souza",
    "Conceição",
    "Gonçalves",
    "Araújo",
    "Simões",
    "Magalhães",
    "Falcão",
    "Brandão",
    "Guimarães",
    "Assunção",
    "Patrício",
    "Mendonça",
    "Loureiro",
    "Damião",
    "Pereira",
    "Lima",
    "Carvalho",
    "Ribeiro",
    "Almeida",
    "Gomes",
    "Fernandes",
    "Barbosa",
    "Rocha",
    "Monteiro",
    "Cardoso",
    "Teixeira",
    "Nóbrega",
    "Sampaio",
    "Peçanha",
];

const AREA_CODES: &[u32] = &[
    11, 21, 31, 41, 47, 48, 51, 61, 62, 71, 79, 81, 82, 83, 85, 91, 92,
];

const CITIES: &[&str] = &[
    "São Paulo",
    "Belém",
    "Maceió",
    "Florianópolis",
    "Goiânia",
    "Ribeirão Preto",
    "João Pessoa",
    "Vitória da Conquista",
    "Niterói",
    "Jundiaí",
    "Porto Alegre",
    "Brasília",
];

const MONTHS: &[&str] = &[
    "janeiro",
    "fevereiro",
    "março",
    "abril",
    "maio",
    "junho",
    "julho",
    "agosto",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
];

/// What customers write; `{n}` is a number, `{cidade}` a city, `{mes}` a month.
const CUSTOMER: &[&str] = &[
    "Olá, bom dia! Gostaria de saber o status do meu pedido {n}.",
    "Boa tarde, o boleto venceu ontem. Posso pagar com atraso sem juros?",
    "Vocês fazem entrega em {cidade}?",
    "Não consigo acessar minha conta, aparece senha inválida.",
    "Qual é o horário de atendimento no sábado?",
    "Recebi o produto com defeito, como faço a troca?",
    "Obrigado pela atenção! 😊",
    "Preciso da segunda via da fatura de {mes}.",
    "O técnico não apareceu na visita agendada para hoje.",
    "Quero cancelar a assinatura, por favor.",
    "A cobrança veio duplicada no cartão de crédito.",
    "Meu endereço mudou, agora é em {cidade}. Como atualizo?",
    "Vocês aceitam pagamento por Pix?",
    "Ainda não recebi o código de rastreio do pedido {n}.",
    "A internet está caindo várias vezes ao dia desde {mes}.",
    "Bom dia, tudo bem? Tenho uma dúvida sobre a promoção.",
    "Consegue me enviar a nota fiscal do pedido {n}?",
    "Ótimo, muito obrigado pela ajuda!",
];

/// What attendants write.
const ATTENDANT: &[&str] = &[
    "Olá! Sou da equipe de atendimento, vou verificar para você.",
    "Seu pedido {n} já saiu para entrega e chega em até 3 dias úteis.",
    "Enviei a segunda via para o seu e-mail cadastrado.",
    "Por gentileza, poderia confirmar o CPF do titular?",
    "A troca pode ser feita em qualquer loja em até 30 dias.",
    "Peço desculpas pelo transtorno, registrei a reclamação com o protocolo {n}.",
    "Sim, atendemos {cidade} com frete grátis acima de R$ 199,00.",
    "Aceitamos Pix, boleto e cartão em até 10 vezes sem juros.",
    "O estorno da cobrança duplicada será feito na próxima fatura.",
    "Reagendei a visita técnica para amanhã, entre 8h e 12h.",
    "Atendimento encerrado. Avalie nossa conversa de 1 a 5, por favor.",
    "Posso ajudar em mais alguma coisa?",
    "Sua assinatura foi cancelada; o acesso continua até o fim de {mes}.",
];

fn fill(rng: &mut Rng, template: &str) -> String {
    let mut text = template.to_owned();
    if text.contains("{n}") {
        text = text.replace("{n}", &(100_000 + rng.below(900_000)).to_string());
    }
    if text.contains("{cidade}") {
        let city = rng.pick::<&str>(CITIES);
        text = text.replace("{cidade}", city);
    }
    if text.contains("{mes}") {
        let month = rng.pick::<&str>(MONTHS);
        text = text.replace("{mes}", month);
    }
    text
}

/// Strips accents and spaces for an e-mail local part.
fn ascii_slug(text: &str) -> String {
    chatflow_core::inbox::search::normalize(text)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// The `serial`-th contact of the company (its number is unique by `serial`).
fn contact(rng: &mut Rng, serial: u64, now: DateTime<Utc>) -> BulkContact {
    let first = *rng.pick(FIRST_NAMES);
    let last = *rng.pick(LAST_NAMES);
    let name = if rng.chance(30) {
        format!("{first} {} {last}", rng.pick(LAST_NAMES))
    } else {
        format!("{first} {last}")
    };
    let email = if rng.chance(40) {
        format!(
            "{}.{}{}@exemplo.com.br",
            ascii_slug(first),
            ascii_slug(last),
            serial
        )
    } else {
        String::new()
    };
    BulkContact {
        name,
        number: format!("55{}9{:08}", rng.pick(AREA_CODES), serial % 100_000_000),
        email,
        created_at: now - Duration::days(120) + Duration::minutes(rng.below(60 * 24 * 30) as i64),
    }
}

/// One generated message of a ticket.
struct GenMessage {
    body: String,
    from_me: bool,
    read: bool,
    at: DateTime<Utc>,
}

/// A ticket and its `m` messages.
fn ticket(
    rng: &mut Rng,
    contact_id: i64,
    newest: bool,
    m: u32,
    users: &[i64],
    queues: &[i64],
    now: DateTime<Utc>,
) -> (BulkTicket, Vec<GenMessage>) {
    let status = if !newest {
        "closed"
    } else {
        match rng.below(100) {
            0..35 => "open",
            35..60 => "pending",
            _ => "closed",
        }
    };
    let unread = if status != "closed" && rng.chance(40) {
        (1 + rng.below(5)).min(u64::from(m)) as i64
    } else {
        0
    };
    let user_id = match status {
        "pending" => None,
        _ if users.is_empty() => None,
        _ => Some(*rng.pick(users)),
    };
    let queue_id = if queues.is_empty() || rng.chance(15) {
        None
    } else {
        Some(*rng.pick(queues))
    };
    // Older tickets are mostly closed: open ones are recent.
    let age_minutes = if status == "closed" {
        rng.below(60 * 24 * 90) as i64
    } else {
        rng.below(60 * 24 * 3) as i64
    };
    let created_at = now - Duration::minutes(age_minutes + i64::from(m) * 30);
    let mut at = created_at;
    let mut messages = Vec::with_capacity(m as usize);
    for j in 0..m {
        at += Duration::seconds(20 + rng.below(30 * 60) as i64);
        let unread_tail = i64::from(m - j) <= unread;
        let from_me = !unread_tail && j % 2 == 1;
        let template = if from_me {
            *rng.pick(ATTENDANT)
        } else {
            *rng.pick(CUSTOMER)
        };
        messages.push(GenMessage {
            body: fill(rng, template),
            from_me,
            read: !unread_tail,
            at,
        });
    }
    let last_message = messages.last().map(|m| m.body.clone()).unwrap_or_default();
    let ticket = BulkTicket {
        uuid: uuid::Uuid::from_u64_pair(rng.next(), rng.next()),
        contact_id,
        status: status.to_owned(),
        unread_messages: unread,
        last_message,
        user_id,
        queue_id,
        created_at,
        updated_at: at,
    };
    (ticket, messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_ticket_of_a_contact_may_stay_open() {
        let mut rng = Rng::new(7);
        let now = Utc::now();
        for _ in 0..200 {
            let (ticket, messages) = ticket(&mut rng, 1, false, 4, &[1], &[2], now);
            assert_eq!(ticket.status, "closed");
            assert_eq!(messages.len(), 4);
            assert_eq!(ticket.unread_messages, 0);
            assert_eq!(ticket.last_message, messages[3].body);
        }
        let statuses: std::collections::HashSet<String> = (0..200)
            .map(|_| ticket(&mut rng, 1, true, 4, &[1], &[2], now).0.status)
            .collect();
        assert_eq!(statuses.len(), 3, "{statuses:?}");
    }

    #[test]
    fn unread_tickets_end_with_unread_customer_messages() {
        let mut rng = Rng::new(3);
        let now = Utc::now();
        for _ in 0..300 {
            let (ticket, messages) = ticket(&mut rng, 1, true, 6, &[1], &[], now);
            let unread = messages.iter().filter(|m| !m.read).count() as i64;
            assert_eq!(unread, ticket.unread_messages);
            assert!(messages.iter().filter(|m| !m.read).all(|m| !m.from_me));
            assert_eq!(ticket.queue_id, None);
            assert!(messages.windows(2).all(|w| w[0].at < w[1].at));
            assert_eq!(ticket.updated_at, messages[5].at);
        }
    }

    #[test]
    fn contacts_have_unique_numbers_and_accented_names() {
        let mut rng = Rng::new(1);
        let now = Utc::now();
        let contacts: Vec<BulkContact> = (0..2000).map(|i| contact(&mut rng, i, now)).collect();
        let numbers: std::collections::HashSet<&str> =
            contacts.iter().map(|c| c.number.as_str()).collect();
        assert_eq!(numbers.len(), 2000);
        assert!(contacts.iter().any(|c| !c.name.is_ascii()));
        assert!(contacts.iter().all(|c| c.email.is_ascii()));
    }
}
