//! Chatbot menus: the text a contact receives, matching their reply to an option, and where the
//! contact stands in a queue's option tree ([`BotState`], stored on the ticket).
//!
//! A menu is a header (a greeting) followed by numbered lines:
//!
//! ```text
//! Olá! Escolha um setor:
//!
//! *[ 1 ]* - Vendas
//! *[ 2 ]* - Suporte
//! *[ 0 ]* - Voltar
//! *[ # ]* - Sair
//! ```
//!
//! Items are numbered from 1 in their order. `[ 0 ]` (back) appears inside a sub-menu of a queue's
//! chatbot, `[ # ]` (exit) in every chatbot menu of a queue; the connection's queue menu has
//! neither. Replies match by number or by the item's text, trimmed, ignoring case, accents,
//! repeated spaces and the menu's own decoration (`*[ 2 ]*`, `2.`, `2)`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::QueueId;
use crate::inbox::search::normalize;
use crate::queue::{ChatbotOption, Queue};

/// The words of the navigation lines, in the company's language (Portuguese by default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MenuLabels {
    /// The `[ 0 ]` line: back to the previous menu.
    pub back: String,
    /// The `[ # ]` line: leave the menu and wait for an attendant.
    pub exit: String,
}

impl Default for MenuLabels {
    fn default() -> Self {
        Self {
            back: "Voltar".into(),
            exit: "Sair".into(),
        }
    }
}

/// Which navigation lines a menu shows (and so which replies it accepts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Navigation {
    /// `[ 0 ]` goes back one level.
    pub back: bool,
    /// `[ # ]` leaves the menu.
    pub exit: bool,
}

/// The key a contact sends to go back.
pub const BACK_KEY: &str = "0";
/// The key a contact sends to leave the menu.
pub const EXIT_KEY: &str = "#";

/// One numbered line: `*[ 1 ]* - Vendas`.
fn line(key: &str, label: &str) -> String {
    format!("*[ {key} ]* - {label}")
}

/// The menu text: `header`, a blank line, the numbered `items`, then the navigation lines.
/// Without a header the text starts with the first line.
pub fn render_menu(header: &str, items: &[&str], nav: Navigation, labels: &MenuLabels) -> String {
    let mut lines: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, item)| line(&(i + 1).to_string(), item.trim()))
        .collect();
    if nav.back {
        lines.push(line(BACK_KEY, &labels.back));
    }
    if nav.exit {
        lines.push(line(EXIT_KEY, &labels.exit));
    }
    let body = lines.join("\n");
    let header = header.trim();
    if header.is_empty() {
        body
    } else if body.is_empty() {
        header.to_owned()
    } else {
        format!("{header}\n\n{body}")
    }
}

/// The queues of a connection as its menu lists them: those of `queue_ids` found in `queues`,
/// by `orderQueue` (queues without one after the ordered ones), then by id. Repeated ids count
/// once.
pub fn menu_queues<'a>(queue_ids: &[QueueId], queues: &'a [Queue]) -> Vec<&'a Queue> {
    let mut listed: Vec<&Queue> = queues
        .iter()
        .filter(|q| queue_ids.contains(&q.id))
        .collect();
    listed.sort_by_key(|q| (q.order_queue.is_none(), q.order_queue, q.id));
    listed.dedup_by_key(|q| q.id);
    listed
}

/// The connection's queue menu: its greeting, then one line per queue.
pub fn render_queue_menu(greeting: &str, queues: &[&Queue], labels: &MenuLabels) -> String {
    let names: Vec<&str> = queues.iter().map(|q| q.name.as_str()).collect();
    render_menu(greeting, &names, Navigation::default(), labels)
}

/// The navigation of a queue's chatbot menu at `depth` (0 for the queue's own options).
pub fn option_navigation(depth: usize) -> Navigation {
    Navigation {
        back: depth > 0,
        exit: true,
    }
}

/// A chatbot menu: `header` (the queue's greeting at the top level, the chosen option's message
/// below), one line per option, and the navigation lines for `depth`.
pub fn render_option_menu(
    header: &str,
    options: &[ChatbotOption],
    depth: usize,
    labels: &MenuLabels,
) -> String {
    let names: Vec<&str> = options.iter().map(|o| o.name.as_str()).collect();
    render_menu(header, &names, option_navigation(depth), labels)
}

/// What a reply chose in a menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MenuChoice {
    /// The item at this index (0-based; the contact typed its number or its text).
    Item(usize),
    /// Back one level.
    Back,
    /// Leave the menu.
    Exit,
    /// Nothing the menu offers.
    Invalid,
}

/// The reply without the menu's decoration: `*[ 2 ]*`, `[2]`, `2.`, `2)` all become `2`.
fn strip_decoration(normalized: &str) -> &str {
    normalized.trim_matches(|c: char| c.is_whitespace() || "*[]().".contains(c))
}

/// Matches `reply` against a menu of `items` with navigation `nav`.
///
/// In order: the number of an item (1 to the number of items); `0` or the back label when back is
/// offered; `#` or the exit label when exit is offered; the text of an item (the first of equal
/// ones). Comparison ignores case, accents, surrounding and repeated spaces. Anything else is
/// [`MenuChoice::Invalid`].
pub fn match_reply(
    reply: &str,
    items: &[&str],
    nav: Navigation,
    labels: &MenuLabels,
) -> MenuChoice {
    let normalized = normalize(reply);
    let key = strip_decoration(&normalized);
    if key.is_empty() {
        return MenuChoice::Invalid;
    }
    if key.bytes().all(|b| b.is_ascii_digit()) {
        if nav.back && key.trim_start_matches('0').is_empty() {
            return MenuChoice::Back;
        }
        return match key.parse::<usize>() {
            Ok(n) if (1..=items.len()).contains(&n) => MenuChoice::Item(n - 1),
            _ => MenuChoice::Invalid,
        };
    }
    if nav.exit && key == EXIT_KEY {
        return MenuChoice::Exit;
    }
    if nav.back && key == normalize(&labels.back) {
        return MenuChoice::Back;
    }
    if nav.exit && key == normalize(&labels.exit) {
        return MenuChoice::Exit;
    }
    items
        .iter()
        .position(|item| normalize(item) == key)
        .map_or(MenuChoice::Invalid, MenuChoice::Item)
}

/// The options at `path` in a queue's tree `root` (`path` empty: the queue's own options), with
/// the option whose sub-menu they are. `None` when the path leads nowhere (the tree changed).
pub fn options_at<'a>(
    root: &'a [ChatbotOption],
    path: &[usize],
) -> Option<(&'a [ChatbotOption], Option<&'a ChatbotOption>)> {
    let mut options = root;
    let mut parent = None;
    for &index in path {
        let option = options.get(index)?;
        parent = Some(option);
        options = &option.options;
    }
    Some((options, parent))
}

/// Where the bot stands with a ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BotStage {
    /// The bot has not spoken on this ticket yet.
    #[default]
    Idle,
    /// The connection's queue menu was sent; the reply picks a queue.
    QueueMenu,
    /// A queue's chatbot menu was sent (at [`BotState::path`]); the reply picks an option.
    OptionMenu,
    /// The contact did not choose within `maxUseBotQueues` menus and there is no queue to send
    /// them to: the bot stays silent until `timeUseBotQueues` resets its counter.
    Exhausted,
    /// The bot handed the ticket over (to a queue, an attendant, an integration): it stays
    /// silent on this ticket.
    Done,
}

/// The bot's memory on a ticket (stored with the ticket as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BotState {
    pub stage: BotStage,
    /// The queue whose chatbot tree [`BotState::path`] walks (the ticket's queue when the menu
    /// was sent; a different queue on the ticket means an attendant moved it, and the bot is
    /// done).
    pub menu_queue_id: Option<QueueId>,
    /// Indexes of the chosen options from the queue's top level down to the menu shown.
    pub path: Vec<usize>,
    /// When the out-of-hours message was last sent (sent again only after the hours opened in
    /// between).
    pub out_of_hours_sent_at: Option<DateTime<Utc>>,
    /// When the collective vacation message was last sent (once per vacation).
    pub vacation_sent_at: Option<DateTime<Utc>>,
}

impl BotState {
    /// Whether the bot waits for the contact's choice (the ticket's `isBot`).
    pub fn awaits_reply(&self) -> bool {
        matches!(self.stage, BotStage::QueueMenu | BotStage::OptionMenu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ChatbotOptionType;

    fn labels() -> MenuLabels {
        MenuLabels::default()
    }

    fn queue(id: i64, name: &str, order: Option<i64>) -> Queue {
        Queue {
            id: QueueId(id),
            name: name.into(),
            color: "#000".into(),
            order_queue: order,
            greeting_message: String::new(),
            out_of_hours_message: String::new(),
            close_ticket: false,
            ativar_roteador: false,
            tempo_roteador: 0,
            integration_id: None,
            file_list_id: None,
            schedules: Vec::new(),
            chatbots: Vec::new(),
        }
    }

    fn option(name: &str, children: Vec<ChatbotOption>) -> ChatbotOption {
        ChatbotOption {
            name: name.into(),
            queue_type: ChatbotOptionType::Text,
            options: children,
            ..ChatbotOption::default()
        }
    }

    #[test]
    fn queue_menu_has_greeting_blank_line_and_numbered_queues() {
        let queues = [queue(1, "Vendas", None), queue(2, "Suporte", None)];
        let listed: Vec<&Queue> = queues.iter().collect();
        assert_eq!(
            render_queue_menu(" Olá! Escolha: ", &listed, &labels()),
            "Olá! Escolha:\n\n*[ 1 ]* - Vendas\n*[ 2 ]* - Suporte"
        );
        assert_eq!(
            render_queue_menu("", &listed, &labels()),
            "*[ 1 ]* - Vendas\n*[ 2 ]* - Suporte"
        );
    }

    #[test]
    fn option_menus_offer_exit_and_back_below_the_top_level() {
        let options = [option("Boletos", vec![]), option("Notas", vec![])];
        assert_eq!(
            render_option_menu("Financeiro", &options, 0, &labels()),
            "Financeiro\n\n*[ 1 ]* - Boletos\n*[ 2 ]* - Notas\n*[ # ]* - Sair"
        );
        let spanish = MenuLabels {
            back: "Volver".into(),
            exit: "Salir".into(),
        };
        assert_eq!(
            render_option_menu("", &options, 2, &spanish),
            "*[ 1 ]* - Boletos\n*[ 2 ]* - Notas\n*[ 0 ]* - Volver\n*[ # ]* - Salir"
        );
    }

    #[test]
    fn menu_queues_follow_order_queue_then_id() {
        let queues = [
            queue(5, "E", None),
            queue(3, "C", Some(2)),
            queue(4, "D", None),
            queue(1, "A", Some(1)),
            queue(9, "Not on the connection", Some(0)),
        ];
        let ids = [QueueId(4), QueueId(5), QueueId(1), QueueId(3), QueueId(1)];
        let names: Vec<&str> = menu_queues(&ids, &queues)
            .iter()
            .map(|q| q.name.as_str())
            .collect();
        assert_eq!(names, ["A", "C", "D", "E"]);
    }

    #[test]
    fn replies_match_by_number_with_or_without_decoration() {
        let items = ["Vendas", "Suporte"];
        let nav = Navigation::default();
        for reply in ["1", " 1 ", "*[ 1 ]*", "[1]", "1.", "1)", "01"] {
            assert_eq!(
                match_reply(reply, &items, nav, &labels()),
                MenuChoice::Item(0),
                "{reply}"
            );
        }
        assert_eq!(
            match_reply("2", &items, nav, &labels()),
            MenuChoice::Item(1)
        );
        for reply in ["3", "0", "-1", "", "  ", "1 2", "99999999999999999999999"] {
            assert_eq!(
                match_reply(reply, &items, nav, &labels()),
                MenuChoice::Invalid,
                "{reply}"
            );
        }
    }

    #[test]
    fn replies_match_by_text_ignoring_case_accents_and_spaces() {
        let items = ["Atendimento Técnico", "Financeiro"];
        let nav = Navigation::default();
        for reply in [
            "atendimento tecnico",
            "  ATENDIMENTO   TÉCNICO ",
            "Atendimento Técnico",
        ] {
            assert_eq!(
                match_reply(reply, &items, nav, &labels()),
                MenuChoice::Item(0),
                "{reply}"
            );
        }
        assert_eq!(
            match_reply("financeiro", &items, nav, &labels()),
            MenuChoice::Item(1)
        );
        assert_eq!(
            match_reply("finan", &items, nav, &labels()),
            MenuChoice::Invalid
        );
    }

    #[test]
    fn back_and_exit_only_where_offered() {
        let items = ["A", "B"];
        let both = Navigation {
            back: true,
            exit: true,
        };
        assert_eq!(match_reply("0", &items, both, &labels()), MenuChoice::Back);
        assert_eq!(
            match_reply("*[ 0 ]*", &items, both, &labels()),
            MenuChoice::Back
        );
        assert_eq!(
            match_reply("voltar", &items, both, &labels()),
            MenuChoice::Back
        );
        assert_eq!(match_reply("#", &items, both, &labels()), MenuChoice::Exit);
        assert_eq!(
            match_reply("[ # ]", &items, both, &labels()),
            MenuChoice::Exit
        );
        assert_eq!(
            match_reply("SAIR", &items, both, &labels()),
            MenuChoice::Exit
        );
        let none = Navigation::default();
        assert_eq!(
            match_reply("0", &items, none, &labels()),
            MenuChoice::Invalid
        );
        assert_eq!(
            match_reply("#", &items, none, &labels()),
            MenuChoice::Invalid
        );
        assert_eq!(
            match_reply("voltar", &items, none, &labels()),
            MenuChoice::Invalid
        );
    }

    #[test]
    fn paths_address_nested_options_to_any_depth() {
        let root = vec![
            option("Um", vec![option("Um.Um", vec![option("Fundo", vec![])])]),
            option("Dois", vec![]),
        ];
        let (top, parent) = options_at(&root, &[]).expect("root");
        assert_eq!(top.len(), 2);
        assert!(parent.is_none());
        let (deep, parent) = options_at(&root, &[0, 0]).expect("two levels down");
        assert_eq!(deep[0].name, "Fundo");
        assert_eq!(parent.map(|p| p.name.as_str()), Some("Um.Um"));
        assert!(options_at(&root, &[0, 0, 0]).is_some_and(|(o, _)| o.is_empty()));
        assert!(options_at(&root, &[1, 0]).is_none());
        assert!(options_at(&root, &[7]).is_none());
    }

    #[test]
    fn bot_state_round_trips_as_json() {
        let state = BotState {
            stage: BotStage::OptionMenu,
            menu_queue_id: Some(QueueId(3)),
            path: vec![1, 0, 2],
            out_of_hours_sent_at: None,
            vacation_sent_at: None,
        };
        let json = serde_json::to_value(&state).expect("json");
        assert_eq!(json["stage"], "optionMenu");
        assert_eq!(json["path"], serde_json::json!([1, 0, 2]));
        assert_eq!(json["menuQueueId"], 3);
        let back: BotState = serde_json::from_value(json).expect("back");
        assert_eq!(back, state);
        let empty: BotState = serde_json::from_str("{}").expect("defaults");
        assert_eq!(empty, BotState::default());
        assert!(state.awaits_reply());
        assert!(!empty.awaits_reply());
    }
}
