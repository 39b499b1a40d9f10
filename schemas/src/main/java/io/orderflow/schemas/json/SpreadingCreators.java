package io.orderflow.schemas.json;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.ValueInstantiators;
import tools.jackson.databind.deser.std.StdValueInstantiator;
import tools.jackson.databind.introspect.AnnotatedConstructor;
import tools.jackson.databind.module.SimpleModule;

/**
 * Calls the constructor of a property-based creator (every record of the contract) through a method handle spread
 * once per type.
 *
 * <p>Jackson 3.1 and 3.2 call such a constructor with {@code MethodHandle.invokeWithArguments}, and the JDK builds a
 * new spreading invoker for every call: at 500 orders/s that was a tenth of what the order processor's stream thread
 * allocated ({@code MethodType}s, lambda-form keys, bound handles, {@code Class[]}), for each record of a state it
 * read. Failures are reported as Jackson reports them ({@link StdValueInstantiator#rewrapCtorProblem}).
 */
final class SpreadingCreators extends SimpleModule {

    SpreadingCreators() {
        super("orderflow-spreading-creators");
    }

    @Override
    public void setupModule(SetupContext context) {
        super.setupModule(context);
        context.addValueInstantiators(new ValueInstantiators.Base() {
            @Override
            public ValueInstantiator modifyValueInstantiator(DeserializationConfig config,
                                                             BeanDescription.Supplier beanDesc,
                                                             ValueInstantiator defaultInstantiator) {
                return defaultInstantiator.getClass() == StdValueInstantiator.class
                        ? Spreading.of((StdValueInstantiator) defaultInstantiator) : defaultInstantiator;
            }
        });
    }

    /** The standard instantiator, with the arguments creator called through one spread handle. */
    static final class Spreading extends StdValueInstantiator {

        private final MethodHandle spread;

        private Spreading(StdValueInstantiator standard, MethodHandle spread) {
            super(standard);
            this.spread = spread;
        }

        /** {@code standard} itself unless its arguments creator is a constructor this class may call. */
        static ValueInstantiator of(StdValueInstantiator standard) {
            if (!(standard.getWithArgsCreator() instanceof AnnotatedConstructor creator)) {
                return standard;
            }
            Constructor<?> constructor = creator.getAnnotated();
            try {
                MethodHandle spread = MethodHandles.publicLookup().unreflectConstructor(constructor)
                        .asSpreader(Object[].class, constructor.getParameterCount())
                        .asType(MethodType.methodType(Object.class, Object[].class));
                return new Spreading(standard, spread);
            } catch (IllegalAccessException notPublic) {
                return standard;
            }
        }

        @Override
        public Object createFromObjectWith(DeserializationContext ctxt, Object[] args) throws JacksonException {
            try {
                return (Object) spread.invokeExact(args);
            } catch (Error e) {
                throw e;
            } catch (Throwable e) {
                return ctxt.handleInstantiationProblem(_valueClass, args, rewrapCtorProblem(ctxt, e));
            }
        }
    }
}
