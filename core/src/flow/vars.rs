//! Variables of a run and their substitution into texts.
//!
//! A placeholder is `{key}` where `key` is letters, digits, `_`, `-` or `.`. It is replaced by
//! the variable's value (exact key first, then the same key ignoring case); an unknown
//! placeholder is left exactly as typed. Substitution is one pass: a value that itself contains
//! `{...}` (a contact's answer, say) is not expanded again.

use std::collections::BTreeMap;

/// Contact fields the host passes when a run starts, and the Portuguese names they are also known
/// by in texts: `name` is `{nome}`, `number` is `{numero}`, and `{firstName}` / `{primeiroNome}`
/// are the first word of the name.
pub const CONTACT_ALIASES: &[(&str, &str)] = &[
    ("name", "nome"),
    ("number", "numero"),
    ("email", "email"),
    ("firstName", "primeiroNome"),
];

/// Completes the starting variables: each contact field is also set under its alias (in both
/// directions, never overwriting a value the host gave), and `firstName` / `primeiroNome` are
/// derived from the name when absent.
pub fn with_contact_aliases(mut vars: BTreeMap<String, String>) -> BTreeMap<String, String> {
    if !vars.contains_key("firstName") && !vars.contains_key("primeiroNome") {
        let name = vars.get("name").or_else(|| vars.get("nome"));
        if let Some(first) = name.and_then(|n| n.split_whitespace().next()) {
            let first = first.to_owned();
            vars.insert("firstName".to_owned(), first);
        }
    }
    for (english, portuguese) in CONTACT_ALIASES {
        match (vars.get(*english).cloned(), vars.get(*portuguese).cloned()) {
            (Some(value), None) => {
                vars.insert((*portuguese).to_owned(), value);
            }
            (None, Some(value)) => {
                vars.insert((*english).to_owned(), value);
            }
            _ => {}
        }
    }
    vars
}

/// `key` without surrounding whitespace and braces: `" {idade} "` is `idade`.
pub fn bare_key(key: &str) -> &str {
    let key = key.trim();
    key.strip_prefix('{')
        .and_then(|k| k.strip_suffix('}'))
        .map_or(key, str::trim)
}

/// The value of `key`: exact match first, then ignoring ASCII case.
pub fn lookup<'a>(vars: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    vars.get(key).map(String::as_str).or_else(|| {
        vars.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    })
}

fn is_key_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `text` with every known `{key}` replaced by its value.
pub fn substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let key_len = after
            .char_indices()
            .find(|(_, c)| !is_key_char(*c))
            .map_or(after.len(), |(i, _)| i);
        let key = &after[..key_len];
        if key_len > 0 && after[key_len..].starts_with('}') {
            if let Some(value) = lookup(vars, key) {
                out.push_str(value);
            } else {
                out.push('{');
                out.push_str(key);
                out.push('}');
            }
            rest = &after[key_len + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn known_placeholders_are_replaced_and_unknown_ones_kept() {
        let v = vars(&[("nome", "Maria"), ("email", "m@x.test")]);
        assert_eq!(
            substitute("Olá {nome}, {email} {desconhecido} {} { nome } {", &v),
            "Olá Maria, m@x.test {desconhecido} {} { nome } {"
        );
    }

    #[test]
    fn lookup_falls_back_to_a_case_insensitive_key() {
        let v = vars(&[("Cidade", "Recife")]);
        assert_eq!(substitute("{cidade}/{CIDADE}", &v), "Recife/Recife");
    }

    #[test]
    fn substitution_is_a_single_pass() {
        let v = vars(&[("a", "{b}"), ("b", "x")]);
        assert_eq!(substitute("{a}{b}", &v), "{b}x");
    }

    #[test]
    fn contact_fields_get_their_aliases_and_first_name() {
        let v = with_contact_aliases(vars(&[("name", "Maria da Silva"), ("numero", "5511")]));
        assert_eq!(v.get("nome").map(String::as_str), Some("Maria da Silva"));
        assert_eq!(v.get("number").map(String::as_str), Some("5511"));
        assert_eq!(v.get("firstName").map(String::as_str), Some("Maria"));
        assert_eq!(v.get("primeiroNome").map(String::as_str), Some("Maria"));
        assert_eq!(
            substitute("{firstName} {numero} {nome}", &v),
            "Maria 5511 Maria da Silva"
        );
    }

    #[test]
    fn host_values_are_never_overwritten_by_aliases() {
        let v = with_contact_aliases(vars(&[("name", "Ana"), ("nome", "Aninha")]));
        assert_eq!(v.get("name").map(String::as_str), Some("Ana"));
        assert_eq!(v.get("nome").map(String::as_str), Some("Aninha"));
    }

    #[test]
    fn bare_keys_lose_braces_and_spaces() {
        assert_eq!(bare_key(" {idade} "), "idade");
        assert_eq!(bare_key("idade"), "idade");
        assert_eq!(bare_key("{ idade }"), "idade");
    }

    #[test]
    fn multibyte_text_survives_substitution() {
        let v = vars(&[("nome", "João")]);
        assert_eq!(
            substitute("Olá, {nome}! 😀 {ação}", &v),
            "Olá, João! 😀 {ação}"
        );
    }
}
