//! Edits of an agent's JSON hook settings (`{"hooks": {EVENT: [{"matcher", "hooks": [HOOK]}]}}`,
//! or Copilot CLI's flat `{"version": 1, "hooks": {EVENT: [HOOK]}}`) made on the text itself, so that `uninstall` undoes `install` byte for byte: an install adds
//! one member to the innermost object or list that is already there (after its last member,
//! on a line of its own in a file laid out on lines, on the same line in one that is not), and
//! an uninstall takes out the outermost member that holds nothing but harness9's hook, with
//! the separator before it. Every other byte stays as it was, comments too.

use jsonc_parser::ast::{Array, Object, Value};
use jsonc_parser::common::Range;
use jsonc_parser::ParseOptions;

/// A JSON value to write, its members in the order given.
#[derive(Debug, Clone)]
pub enum Json {
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// The value written at `indent` (the indentation of its own line), each level `unit`
    /// deeper; on one line when `inline`.
    fn render(&self, inline: bool, indent: &str, unit: &str) -> String {
        let (open, close, items): (char, char, Vec<String>) = match self {
            Json::Str(s) => return quote(s),
            Json::Arr(xs) => {
                let inner = format!("{indent}{unit}");
                let items = xs.iter().map(|x| x.render(inline, &inner, unit)).collect();
                ('[', ']', items)
            }
            Json::Obj(ms) => {
                let inner = format!("{indent}{unit}");
                let items = ms
                    .iter()
                    .map(|(k, v)| format!("{}: {}", quote(k), v.render(inline, &inner, unit)))
                    .collect();
                ('{', '}', items)
            }
        };
        if items.is_empty() {
            return format!("{open}{close}");
        }
        if inline {
            return format!("{open}{}{close}", items.join(", "));
        }
        let inner = format!("{indent}{unit}");
        let body: Vec<String> = items.iter().map(|i| format!("{inner}{i}")).collect();
        format!("{open}\n{}\n{indent}{close}", body.join(",\n"))
    }
}

fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The root object of a settings text.
fn root(text: &str) -> Result<Object<'_>, String> {
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &ParseOptions::default())
        .map_err(|e| format!("it does not parse ({e})"))?;
    match parsed.value {
        Some(Value::Object(o)) => Ok(o),
        None => Err("it is empty".into()),
        Some(_) => Err("its top level is not a JSON object".into()),
    }
}

fn prop<'a, 'b>(o: &'b Object<'a>, name: &str) -> Option<&'b jsonc_parser::ast::ObjectProp<'a>> {
    o.properties.iter().find(|p| p.name.as_str() == name)
}

fn string_of(o: &Object, name: &str) -> Option<String> {
    prop(o, name)
        .and_then(|p| p.value.as_string_lit())
        .map(|s| s.value.to_string())
}

/// How a host lays out its hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The event's list holds the entries themselves (Copilot CLI), not groups of them.
    pub flat: bool,
    /// The entry's field with the shell command (`command`; Copilot CLI's `bash`).
    pub command: &'static str,
}

/// Claude Code's, Gemini CLI's and Codex's layout.
pub const GROUPED: Layout = Layout {
    flat: false,
    command: "command",
};

/// Where a hook entry is: the group's index in the event's list, the entry's index in the
/// group's `hooks` (in a flat layout: the entry's index in the list, and 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub group: usize,
    pub hook: usize,
}

/// A hook entry found in the settings.
#[derive(Debug, Clone)]
pub struct Found {
    pub at: At,
    pub command: String,
    /// The entry's other string fields (`onFailure`).
    pub fields: Vec<(String, String)>,
}

/// The command hook entries of `event`, in order.
pub fn entries(text: &str, event: &str, layout: Layout) -> Result<Vec<Found>, String> {
    let root = root(text)?;
    let Some(groups) = event_list(&root, event)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (g, group) in groups.elements.iter().enumerate() {
        let hooks: Vec<&Value> = if layout.flat {
            vec![group]
        } else {
            match group_hooks(group) {
                Some(h) => h.elements.iter().collect(),
                None => continue,
            }
        };
        for (h, hook) in hooks.into_iter().enumerate() {
            let Value::Object(o) = hook else { continue };
            let Some(command) = string_of(o, layout.command) else {
                continue;
            };
            let fields = o
                .properties
                .iter()
                .filter_map(|p| {
                    p.value
                        .as_string_lit()
                        .map(|s| (p.name.as_str().to_string(), s.value.to_string()))
                })
                .collect();
            out.push(Found {
                at: At { group: g, hook: h },
                command,
                fields,
            });
        }
    }
    Ok(out)
}

fn hooks_object<'a, 'b>(root: &'b Object<'a>) -> Result<Option<&'b Object<'a>>, String> {
    match prop(root, "hooks").map(|p| &p.value) {
        None => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(_) => Err("`hooks` is not an object".into()),
    }
}

fn event_list<'a, 'b>(root: &'b Object<'a>, event: &str) -> Result<Option<&'b Array<'a>>, String> {
    let Some(hooks) = hooks_object(root)? else {
        return Ok(None);
    };
    match prop(hooks, event).map(|p| &p.value) {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(_) => Err(format!("`hooks.{event}` is not a list")),
    }
}

fn group_hooks<'a, 'b>(group: &'b Value<'a>) -> Option<&'b Array<'a>> {
    let Value::Object(g) = group else {
        return None;
    };
    match prop(g, "hooks").map(|p| &p.value) {
        Some(Value::Array(a)) => Some(a),
        _ => None,
    }
}

fn hook_object<'a, 'b>(
    root: &'b Object<'a>,
    event: &str,
    at: At,
    layout: Layout,
) -> Option<&'b Object<'a>> {
    let groups = event_list(root, event).ok()??;
    let group = groups.elements.get(at.group)?;
    let hook = if layout.flat {
        group
    } else {
        group_hooks(group)?.elements.get(at.hook)?
    };
    match hook {
        Value::Object(o) => Some(o),
        _ => None,
    }
}

/// The leading white space of the line `pos` is on.
fn line_indent(text: &str, pos: usize) -> &str {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// The file's unit of indentation: the first indented line's, else two spaces.
fn indent_unit(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|l| {
            let end = l.find(|c: char| c != ' ' && c != '\t').unwrap_or(l.len());
            &l[..end]
        })
        .find(|w| !w.is_empty())
        .unwrap_or("  ")
        .to_string()
}

/// The text with `member` added to the container at `range` (an object's `"key": value`, or
/// a list's value) after its last member (whose ranges are `members`).
fn insert(text: &str, range: Range, members: &[Range], member: &str, value: &Json) -> String {
    let unit = indent_unit(text);
    let open = range.start;
    let close = range.end - 1;
    let inline = !text[open..close].contains('\n') && !members.is_empty();
    let key = if member.is_empty() {
        String::new()
    } else {
        format!("{}: ", quote(member))
    };
    match members.last() {
        Some(last) if inline => {
            let v = value.render(true, "", &unit);
            format!("{}, {key}{v}{}", &text[..last.end], &text[last.end..])
        }
        Some(last) => {
            let indent = line_indent(text, last.start);
            let v = value.render(false, indent, &unit);
            format!(
                "{},\n{indent}{key}{v}{}",
                &text[..last.end],
                &text[last.end..]
            )
        }
        None => {
            let outer = line_indent(text, open);
            let indent = format!("{outer}{unit}");
            let v = value.render(false, &indent, &unit);
            format!(
                "{}\n{indent}{key}{v}\n{outer}{}",
                &text[..=open],
                &text[close..]
            )
        }
    }
}

/// The text with member `i` of the container at `range` (member ranges `members`) taken out,
/// with the separator before it (after it, for the first of several).
fn remove(text: &str, range: Range, members: &[Range], i: usize) -> String {
    if members.len() == 1 {
        return format!("{}{}", &text[..=range.start], &text[range.end - 1..]);
    }
    if i + 1 == members.len() {
        return format!("{}{}", &text[..members[i - 1].end], &text[members[i].end..]);
    }
    format!(
        "{}{}",
        &text[..members[i].start],
        &text[members[i + 1].start..]
    )
}

fn prop_ranges(o: &Object) -> Vec<Range> {
    o.properties.iter().map(|p| p.range).collect()
}

fn element_ranges(a: &Array) -> Vec<Range> {
    a.elements.iter().map(|v| value_range(v)).collect()
}

fn value_range(v: &Value) -> Range {
    use jsonc_parser::common::Ranged;
    v.range()
}

/// The text with a new group holding `hook` added to `event`, in the innermost container that
/// is there.
pub fn add_group(text: &str, event: &str, group: Json) -> Result<String, String> {
    let root = root(text)?;
    if let Some(list) = event_list(&root, event)? {
        return Ok(insert(text, list.range, &element_ranges(list), "", &group));
    }
    let event_value = Json::Arr(vec![group]);
    if let Some(hooks) = hooks_object(&root)? {
        return Ok(insert(
            text,
            hooks.range,
            &prop_ranges(hooks),
            event,
            &event_value,
        ));
    }
    Ok(insert(
        text,
        root.range,
        &prop_ranges(&root),
        "hooks",
        &Json::Obj(vec![(event.to_string(), event_value)]),
    ))
}

/// The text with the string field `name` of the hook entry at `at` set to `value` (added after
/// its last field when missing).
pub fn set_field(
    text: &str,
    event: &str,
    at: At,
    layout: Layout,
    name: &str,
    value: &str,
) -> Result<String, String> {
    let root = root(text)?;
    let hook =
        hook_object(&root, event, at, layout).ok_or("a hook entry moved while it was edited")?;
    if let Some(p) = prop(hook, name) {
        let r = value_range(&p.value);
        return Ok(format!(
            "{}{}{}",
            &text[..r.start],
            quote(value),
            &text[r.end..]
        ));
    }
    Ok(insert(
        text,
        hook.range,
        &prop_ranges(hook),
        name,
        &Json::Str(value.to_string()),
    ))
}

/// The text with the hook entry at `at` taken out, and with it the outermost of its group,
/// its event and `hooks` that held nothing else.
pub fn remove_entry(text: &str, event: &str, at: At, layout: Layout) -> Result<String, String> {
    let root = root(text)?;
    let hooks = hooks_object(&root)?.ok_or("`hooks` went away while it was edited")?;
    let list = event_list(&root, event)?.ok_or("an event went away while it was edited")?;
    let group = list
        .elements
        .get(at.group)
        .ok_or("a hook group went away while it was edited")?;
    let alone = |n: usize| n == 1;
    if !layout.flat {
        let entries = group_hooks(group).ok_or("a hook group lost its `hooks`")?;
        if !alone(entries.elements.len()) {
            return Ok(remove(
                text,
                entries.range,
                &element_ranges(entries),
                at.hook,
            ));
        }
    }
    // The group holds only this entry (and its matcher), or is the entry: it goes.
    if !alone(list.elements.len()) {
        return Ok(remove(text, list.range, &element_ranges(list), at.group));
    }
    let event_at = hooks
        .properties
        .iter()
        .position(|p| p.name.as_str() == event)
        .ok_or("an event went away while it was edited")?;
    if !alone(hooks.properties.len()) {
        return Ok(remove(text, hooks.range, &prop_ranges(hooks), event_at));
    }
    let hooks_at = root
        .properties
        .iter()
        .position(|p| p.name.as_str() == "hooks")
        .ok_or("`hooks` went away while it was edited")?;
    Ok(remove(text, root.range, &prop_ranges(&root), hooks_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(command: &str) -> Json {
        Json::Obj(vec![
            ("matcher".into(), Json::Str("*".into())),
            (
                "hooks".into(),
                Json::Arr(vec![Json::Obj(vec![
                    ("type".into(), Json::Str("command".into())),
                    ("command".into(), Json::Str(command.into())),
                ])]),
            ),
        ])
    }

    #[test]
    fn an_added_group_taken_out_again_leaves_the_text_as_it_was() {
        for text in [
            "{}\n",
            "{\"model\": \"x\"}",
            "{\n  // keep\n  \"model\": \"x\"\n}\n",
            "{\n\t\"hooks\": {\"Stop\": []}\n}\n",
            "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}\n    ]\n  }\n}\n",
        ] {
            let added = add_group(text, "PreToolUse", group("h9")).unwrap();
            let added = add_group(&added, "PostToolUse", group("h9")).unwrap();
            assert!(root(&added).is_ok(), "{added}");
            let mut now = added.clone();
            for event in ["PostToolUse", "PreToolUse"] {
                let at = entries(&now, event, GROUPED)
                    .unwrap()
                    .into_iter()
                    .find(|f| f.command == "h9")
                    .unwrap()
                    .at;
                now = remove_entry(&now, event, at, GROUPED).unwrap();
            }
            assert_eq!(now, text, "added:\n{added}");
        }
    }

    #[test]
    fn a_field_is_set_in_place_or_added_after_the_last() {
        let text = add_group("{}\n", "PreToolUse", group("h9")).unwrap();
        let at = At { group: 0, hook: 0 };
        let t = set_field(&text, "PreToolUse", at, GROUPED, "onFailure", "block").unwrap();
        let found = &entries(&t, "PreToolUse", GROUPED).unwrap()[0];
        assert!(found
            .fields
            .contains(&("onFailure".to_string(), "block".to_string())));
        let t = set_field(&t, "PreToolUse", at, GROUPED, "command", "new").unwrap();
        assert_eq!(
            entries(&t, "PreToolUse", GROUPED).unwrap()[0].command,
            "new"
        );
    }

    #[test]
    fn a_flat_entry_added_and_taken_out_leaves_the_text_as_it_was() {
        let flat = Layout {
            flat: true,
            command: "bash",
        };
        let entry = Json::Obj(vec![
            ("type".into(), Json::Str("command".into())),
            ("bash".into(), Json::Str("h9".into())),
        ]);
        for text in [
            "{\n  \"version\": 1\n}\n",
            "{\"version\": 1, \"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"x\"}]}}",
        ] {
            let added = add_group(text, "preToolUse", entry.clone()).unwrap();
            let found = entries(&added, "preToolUse", flat).unwrap();
            let ours = found.iter().find(|f| f.command == "h9").unwrap();
            assert_eq!(remove_entry(&added, "preToolUse", ours.at, flat).unwrap(), text);
        }
    }
}
