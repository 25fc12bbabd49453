//! Message variables: the placeholders an attendant or an automatic message writes between
//! double braces, filled from the ticket before the text reaches the contact
//! (docs/quick-messages.md, docs/routing.md).
//!
//! | variable | value |
//! |---|---|
//! | `{{name}}` | the contact's name |
//! | `{{firstName}}` | the contact's first word of the name |
//! | `{{queue}}` | the ticket's queue name (empty without a queue) |
//! | `{{protocol}}` | the ticket's protocol: its id, as the ticket view shows it |
//! | `{{user}}` | the attendant's name (empty when none) |
//!
//! A variable the list does not name (or a misspelt one) stays as typed, and the text is read
//! once, left to right: a value that itself contains `{{...}}` (a contact named "{{queue}}") is
//! never filled again.

use crate::inbox::model::Ticket;

/// The values of the variables for one ticket.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Variables {
    pub name: String,
    pub queue: String,
    pub protocol: String,
    pub user: String,
}

impl Variables {
    /// The values for `ticket`, with `user` as the attendant's name.
    pub fn of(ticket: &Ticket, user: Option<&str>) -> Self {
        Self {
            name: ticket.contact.name.clone(),
            queue: ticket
                .queue
                .as_ref()
                .map(|q| q.name.clone())
                .unwrap_or_default(),
            protocol: ticket.id.to_string(),
            user: user.unwrap_or_default().to_owned(),
        }
    }

    /// The value of variable `key`, `None` for a variable the list does not name.
    fn value(&self, key: &str) -> Option<&str> {
        match key {
            "name" => Some(&self.name),
            "firstName" => Some(self.name.split_whitespace().next().unwrap_or("")),
            "queue" => Some(&self.queue),
            "protocol" => Some(&self.protocol),
            "user" => Some(&self.user),
            _ => None,
        }
    }
}

/// `text` with its known variables filled (see the module's table); unknown ones stay.
pub fn fill(text: &str, vars: &Variables) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => match vars.value(&after[..end]) {
                Some(value) => {
                    out.push_str(value);
                    rest = &after[end + 2..];
                }
                None => {
                    // Not a variable: keep "{{" and look again from the next character, so
                    // "{{{{name}}" still fills the inner one.
                    out.push_str("{{");
                    rest = after;
                }
            },
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Variables {
        Variables {
            name: "Maria da Silva".into(),
            queue: "Vendas".into(),
            protocol: "42".into(),
            user: "Ana".into(),
        }
    }

    #[test]
    fn fills_every_known_variable() {
        assert_eq!(
            fill(
                "Olá {{firstName}} ({{name}}), aqui é {{user}} de {{queue}}; protocolo {{protocol}}.",
                &vars()
            ),
            "Olá Maria (Maria da Silva), aqui é Ana de Vendas; protocolo 42."
        );
    }

    #[test]
    fn unknown_and_unclosed_variables_stay_as_typed() {
        assert_eq!(
            fill("{{nome}} {{ name }} {{name", &vars()),
            "{{nome}} {{ name }} {{name"
        );
        assert_eq!(fill("{{{{name}}}}", &vars()), "{{Maria da Silva}}");
        assert_eq!(fill("sem variáveis", &vars()), "sem variáveis");
    }

    #[test]
    fn values_are_never_filled_again() {
        let v = Variables {
            name: "{{queue}}".into(),
            ..vars()
        };
        assert_eq!(fill("{{name}} {{queue}}", &v), "{{queue}} Vendas");
    }

    #[test]
    fn empty_values_fill_empty() {
        let v = Variables::default();
        assert_eq!(fill("[{{queue}}][{{user}}][{{firstName}}]", &v), "[][][]");
    }
}
