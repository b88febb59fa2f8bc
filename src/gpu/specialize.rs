//! Shader modules compiled for one set of pipeline constants, their dead branches dropped.
//!
//! Many of fogbank's shaders choose a form by a WGSL `override`: the seed or the physical fog
//! medium, the noise hashed or read from the lattice, the moon's shadows on or off. A driver
//! sees every side of such a branch. naga's SPIR-V keeps an `if false { … }` as a branch on a
//! constant, and Mesa's front end inlines every function the dead side calls before it folds
//! the branch away. On lavapipe the flames' pipeline compiled in 113–166 ms with its per-pixel
//! march behind a constant, and in 13–23 ms once the march had its own entry point.
//!
//! [`specialize`] does that for every branch on a constant. It applies the constants to the
//! parsed module (naga's `process_overrides`), replaces each `if` whose condition is now
//! constant by the side it takes, drops statements after a `return`, `discard`, `break` or
//! `continue` of the same block, and compacts the module, so functions that only the dead sides
//! called are gone. The module that reaches the driver has no `override` left: its pipelines
//! pass no constants.
//!
//! A condition counts as constant when it is a boolean literal or constant, a `!` of one, or an
//! `&&` or `||` whose value one side settles. `process_overrides` has already folded
//! comparisons of constants (`FOG_MEDIUM != FOG_MEDIUM_SEED`) into literals. The taken side
//! runs exactly as before: only code that could never run is removed.

use naga::back::PipelineConstants;
use naga::back::pipeline_constants::process_overrides;
use naga::compact::{KeepUnused, compact};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{
    Arena, BinaryOperator, Block, Constant, Expression, Function, Handle, Literal, LocalVariable,
    Module, Statement, SwitchCase, UnaryOperator,
};
use std::collections::{HashMap, HashSet};

/// `module` (validated as `info`) with `constants` applied, its branches on constants replaced
/// by their taken sides and what no entry point reaches removed. `constants` name the
/// module's `override`s, as a pipeline's compilation options would; the others keep their
/// defaults. An unknown constant, or a value its type cannot hold, is an error: naga's message.
pub(crate) fn specialize(
    module: &Module,
    info: &ModuleInfo,
    constants: &[(&str, f64)],
) -> Result<Module, String> {
    let mut values = PipelineConstants::default();
    for &(name, value) in constants {
        values.insert(name.to_string(), value);
    }
    let (applied, _) =
        process_overrides(module, info, None, &values).map_err(|error| error.to_string())?;
    let mut module = applied.into_owned();
    let Module {
        constants,
        global_expressions,
        functions,
        entry_points,
        ..
    } = &mut module;
    let known = KnownBools {
        constants,
        global_expressions,
    };
    for (_, function) in functions.iter_mut() {
        known.prune_function(function);
    }
    for entry_point in entry_points.iter_mut() {
        known.prune_function(&mut entry_point.function);
    }
    compact(&mut module, KeepUnused::No);
    Ok(module)
}

/// Parses and validates `source`, for [`specialize`]: naga's message where it fails.
pub(crate) fn parse(source: &str) -> Result<(Module, ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    Ok((module, info))
}

/// What a module's constants say of the booleans its functions test.
struct KnownBools<'m> {
    constants: &'m Arena<Constant>,
    global_expressions: &'m Arena<Expression>,
}

/// The boolean local variables whose value is known at a point of a function: naga lowers
/// `a && b` to a variable set on each side of an `if a`, then tested.
type KnownLocals = HashMap<Handle<LocalVariable>, bool>;

impl KnownBools<'_> {
    /// Prunes `function`'s body (see [`prune_block`](Self::prune_block)). The names of
    /// expressions that only a dropped side worked out go too: compaction keeps every named
    /// expression, and a call's result names a function that may be gone.
    fn prune_function(&self, function: &mut Function) {
        let body = std::mem::replace(&mut function.body, Block::new());
        let mut locals = KnownLocals::new();
        function.body = self.prune_block(body, &function.expressions, &mut locals);
        let mut worked_out = HashSet::new();
        worked_out_in(&function.body, &mut worked_out);
        function
            .named_expressions
            .retain(|expression, _| worked_out.contains(expression));
    }

    /// `block` with each `if` on a known condition replaced by its taken side, recursively,
    /// and nothing after the first statement that leaves it. `locals` holds what is known on
    /// entry, and on return what is known after the block.
    fn prune_block(
        &self,
        block: Block,
        expressions: &Arena<Expression>,
        locals: &mut KnownLocals,
    ) -> Block {
        let mut pruned = Block::with_capacity(block.len());
        for (statement, span) in block.span_into_iter() {
            if let Statement::If {
                condition,
                accept,
                reject,
            } = statement
            {
                match self.value_of(condition, expressions, locals) {
                    // The taken side runs in line, as part of this block.
                    Some(taken) => {
                        let side = if taken { accept } else { reject };
                        let side = self.prune_block(side, expressions, locals);
                        for (inner, inner_span) in side.span_into_iter() {
                            pruned.push(inner, inner_span);
                        }
                    }
                    None => {
                        let statement = Statement::If {
                            condition,
                            accept,
                            reject,
                        };
                        pruned.push(self.prune_nested(statement, expressions, locals), span);
                    }
                }
            } else if let Statement::Store { pointer, value } = statement {
                match (
                    local_of(pointer, expressions),
                    self.value_of(value, expressions, locals),
                ) {
                    (Some(local), Some(known)) => {
                        locals.insert(local, known);
                    }
                    (Some(local), None) => {
                        locals.remove(&local);
                    }
                    (None, _) => {}
                }
                pruned.push(Statement::Store { pointer, value }, span);
            } else {
                pruned.push(self.prune_nested(statement, expressions, locals), span);
            }
            if pruned.last().is_some_and(leaves_block) {
                break;
            }
        }
        pruned
    }

    /// `statement` with the blocks inside it pruned. What it may store is forgotten, before
    /// (a loop runs its body again) and after.
    fn prune_nested(
        &self,
        statement: Statement,
        expressions: &Arena<Expression>,
        locals: &mut KnownLocals,
    ) -> Statement {
        let mut stored = Vec::new();
        stores_in(&statement, expressions, &mut stored);
        for local in &stored {
            locals.remove(local);
        }
        let prune = |block: Block| self.prune_block(block, expressions, &mut locals.clone());
        match statement {
            Statement::If {
                condition,
                accept,
                reject,
            } => Statement::If {
                condition,
                accept: prune(accept),
                reject: prune(reject),
            },
            Statement::Block(inner) => Statement::Block(prune(inner)),
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => Statement::Loop {
                body: prune(body),
                continuing: prune(continuing),
                break_if,
            },
            Statement::Switch { selector, cases } => {
                let cases = cases
                    .into_iter()
                    .map(|case| SwitchCase {
                        body: prune(case.body),
                        ..case
                    })
                    .collect();
                Statement::Switch { selector, cases }
            }
            other => other,
        }
    }

    /// The value of the boolean `expression`, where the constants settle it.
    fn value_of(
        &self,
        expression: Handle<Expression>,
        expressions: &Arena<Expression>,
        locals: &KnownLocals,
    ) -> Option<bool> {
        match expressions[expression] {
            Expression::Literal(Literal::Bool(value)) => Some(value),
            Expression::Constant(constant) => {
                let init = self.constants[constant].init;
                match self.global_expressions[init] {
                    Expression::Literal(Literal::Bool(value)) => Some(value),
                    _ => None,
                }
            }
            Expression::Load { pointer } => {
                let local = local_of(pointer, expressions)?;
                locals.get(&local).copied()
            }
            Expression::Unary {
                op: UnaryOperator::LogicalNot,
                expr,
            } => self.value_of(expr, expressions, locals).map(|value| !value),
            Expression::Binary { op, left, right } => {
                let left = self.value_of(left, expressions, locals);
                let right = self.value_of(right, expressions, locals);
                match op {
                    BinaryOperator::LogicalAnd => match (left, right) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    },
                    BinaryOperator::LogicalOr => match (left, right) {
                        (Some(true), _) | (_, Some(true)) => Some(true),
                        (Some(false), Some(false)) => Some(false),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The local variable `pointer` points to, or into (through fields and elements).
fn local_of(
    pointer: Handle<Expression>,
    expressions: &Arena<Expression>,
) -> Option<Handle<LocalVariable>> {
    match expressions[pointer] {
        Expression::LocalVariable(local) => Some(local),
        Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
            local_of(base, expressions)
        }
        _ => None,
    }
}

/// Adds to `stored` every local variable that `statement` may write: by a store, or by a
/// pointer it hands to a function.
fn stores_in(
    statement: &Statement,
    expressions: &Arena<Expression>,
    stored: &mut Vec<Handle<LocalVariable>>,
) {
    match statement {
        Statement::Store { pointer, .. } => stored.extend(local_of(*pointer, expressions)),
        Statement::Call { arguments, .. } => {
            stored.extend(arguments.iter().filter_map(|&a| local_of(a, expressions)))
        }
        _ => {}
    }
    for block in nested_blocks(statement) {
        for inner in block.iter() {
            stores_in(inner, expressions, stored);
        }
    }
}

/// Adds to `worked_out` every expression that `block` emits or that a call of it returns.
fn worked_out_in(block: &Block, worked_out: &mut HashSet<Handle<Expression>>) {
    for statement in block.iter() {
        match statement {
            Statement::Emit(range) => worked_out.extend(range.clone()),
            Statement::Call {
                result: Some(result),
                ..
            } => {
                worked_out.insert(*result);
            }
            _ => {}
        }
        for inner in nested_blocks(statement) {
            worked_out_in(inner, worked_out);
        }
    }
}

/// The blocks inside `statement`: an `if`'s two sides, a block, a loop's body and continuing,
/// a switch's cases.
fn nested_blocks(statement: &Statement) -> Vec<&Block> {
    match statement {
        Statement::If { accept, reject, .. } => vec![accept, reject],
        Statement::Block(inner) => vec![inner],
        Statement::Loop {
            body, continuing, ..
        } => vec![body, continuing],
        Statement::Switch { cases, .. } => cases.iter().map(|case| &case.body).collect(),
        _ => Vec::new(),
    }
}

/// Whether `statement` leaves its block, so that nothing after it runs.
fn leaves_block(statement: &Statement) -> bool {
    matches!(
        statement,
        Statement::Return { .. } | Statement::Kill | Statement::Break | Statement::Continue
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module of `source` specialized by `constants`, checked to validate.
    fn specialized(source: &str, constants: &[(&str, f64)]) -> Module {
        let (module, info) = parse(source).expect("test source parses");
        let module = specialize(&module, &info, constants).expect("constants apply");
        Validator::new(ValidationFlags::all(), Capabilities::all())
            .validate(&module)
            .expect("the specialized module validates");
        module
    }

    /// The names of the module's functions (entry points aside).
    fn function_names(module: &Module) -> Vec<String> {
        let names = module.functions.iter().map(|(_, f)| f.name.clone());
        names.map(Option::unwrap_or_default).collect()
    }

    /// How many `if`s the entry point `fs` holds, at any depth.
    fn ifs_in_entry(module: &Module) -> usize {
        fn count(block: &Block) -> usize {
            let ifs = block
                .iter()
                .filter(|s| matches!(s, Statement::If { .. }))
                .count();
            let nested = block.iter().flat_map(nested_blocks).map(count);
            ifs + nested.sum::<usize>()
        }
        count(&module.entry_points[0].function.body)
    }

    const BRANCHES: &str = "
        override HEAVY: bool = false;
        override MODE: u32 = 0u;
        @group(0) @binding(0) var<uniform> knob: f32;
        fn heavy(x: f32) -> f32 { return sin(x) * cos(x); }
        fn light(x: f32) -> f32 { return x * 2.0; }
        fn other(x: f32) -> f32 { return x + 1.0; }
        @fragment fn fs() -> @location(0) vec4<f32> {
            var v = knob;
            if HEAVY { v = heavy(v); } else { v = light(v); }
            if MODE != 0u && knob > 0.5 { v = other(v); }
            if knob > 0.25 { v += 1.0; }
            return vec4<f32>(v);
        }
    ";

    /// A branch on a constant keeps only its taken side, and the functions only the other side
    /// called are gone; a branch on a run-time value stays.
    #[test]
    fn branches_on_constants_keep_their_taken_side() {
        let defaults = specialized(BRANCHES, &[]);
        assert_eq!(function_names(&defaults), ["light"]);
        assert_eq!(ifs_in_entry(&defaults), 1, "only `knob > 0.25` is left");

        let heavy = specialized(BRANCHES, &[("HEAVY", 1.0)]);
        assert_eq!(function_names(&heavy), ["heavy"]);

        // `MODE != 0u` alone does not settle an `&&` whose other side is true.
        let mode = specialized(BRANCHES, &[("MODE", 1.0)]);
        assert_eq!(function_names(&mode), ["light", "other"]);
        assert_eq!(ifs_in_entry(&mode), 2);
        assert!(mode.overrides.is_empty(), "no override reaches the driver");
    }

    /// Statements after a taken side's `return` are dropped, and the module still validates.
    #[test]
    fn a_taken_return_ends_its_block() {
        let source = "
            override EARLY: bool = false;
            fn late(x: f32) -> f32 { return x * 3.0; }
            @fragment fn fs() -> @location(0) vec4<f32> {
                if EARLY { return vec4<f32>(1.0); }
                return vec4<f32>(late(0.5));
            }
        ";
        let early = specialized(source, &[("EARLY", 1.0)]);
        assert!(function_names(&early).is_empty(), "`late` is never reached");
        let body = &early.entry_points[0].function.body;
        let returns = body
            .iter()
            .filter(|s| matches!(s, Statement::Return { .. }))
            .count();
        assert_eq!(returns, 1);
        let late = specialized(source, &[]);
        assert_eq!(function_names(&late), ["late"]);
    }

    /// An unknown constant is an error, as it would be for a pipeline.
    #[test]
    fn unknown_constants_are_refused() {
        let (module, info) = parse(BRANCHES).unwrap();
        assert!(specialize(&module, &info, &[("NOT_THERE", 1.0)]).is_err());
    }
}
